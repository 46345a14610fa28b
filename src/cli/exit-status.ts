import type { Command } from 'commander';

// Kept apart from program.ts so that command groups can set an exit code without importing
// the program (which imports them).

/** Makes a command's run end with `code` (when it did not fail with an error). */
export function setExitCode(command: Command, code: number): void {
  (command as Command & { exitCodeSet?: number }).exitCodeSet = code;
}

/** The code a command's action set with {@link setExitCode}, if any. */
export function exitCodeSetOn(command: Command): number | undefined {
  return (command as Command & { exitCodeSet?: number }).exitCodeSet;
}
