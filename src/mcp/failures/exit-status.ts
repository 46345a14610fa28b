/** How a child process ended: its exit code, or the signal that stopped it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: string | null;
}

/** `exited with code 3`, `was stopped by signal SIGKILL`: how a status or an error says it. */
export function describeExit(exit: ProcessExit): string {
  if (exit.signal !== null) return `was stopped by signal ${exit.signal}`;
  return `exited with code ${exit.code ?? 'unknown'}`;
}

/** `value` as a {@link ProcessExit} when it has that shape (from an error's details). */
export function exitOf(value: unknown): ProcessExit | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, signal } = value as { code?: unknown; signal?: unknown };
  const okCode = code === null || typeof code === 'number';
  const okSignal = signal === null || typeof signal === 'string';
  return okCode && okSignal
    ? { code: code as number | null, signal: signal as string | null }
    : undefined;
}
