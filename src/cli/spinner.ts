import type { CliIo } from './cli-io.js';

/** The part of an `ora` spinner the CLI uses. */
export interface SpinnerHandle {
  start(): unknown;
  stop(): unknown;
}

/** Makes a spinner drawing `text` on `stream` (by default `ora`, loaded only when needed). */
export type SpinnerFactory = (
  text: string,
  stream: NodeJS.WritableStream,
) => Promise<SpinnerHandle>;

const loadOra: SpinnerFactory = async (text, stream) => {
  const { default: ora } = await import('ora');
  return ora({ text, stream, discardStdin: false });
};

/**
 * Runs `fn` with a spinner showing `text` on stderr while it waits: only when the command talks
 * to a person (`io.interactive`) and does not print JSON. Otherwise `ora` is not even loaded
 * and nothing extra is printed. The spinner is stopped (and its line cleared) however `fn` ends.
 */
export async function withSpinner<T>(
  io: CliIo,
  options: { readonly json: boolean },
  text: string,
  fn: () => Promise<T>,
  factory: SpinnerFactory = loadOra,
): Promise<T> {
  if (!io.interactive || options.json) return fn();
  const spinner = await factory(text, io.stderr);
  spinner.start();
  try {
    return await fn();
  } finally {
    spinner.stop();
  }
}
