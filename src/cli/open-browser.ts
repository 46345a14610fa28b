import { spawn } from 'node:child_process';

/** How {@link openBrowser} went: opened, or why not (for a notice; the URL is printed anyway). */
export type BrowserOutcome = { readonly opened: true } | { readonly opened: false; reason: string };

/** A program that opens a URL (or a file) in the browser, with the arguments before it. */
export interface BrowserCommand {
  readonly program: string;
  readonly args: readonly string[];
}

/**
 * The command that opens URLs here: `MUSTER_BROWSER` (a program, given the URL) wherever it
 * is set; else `open` on macOS, `rundll32 url.dll,FileProtocolHandler` on Windows (the URL
 * handler, with no shell to re-read the URL's `&`), `xdg-open` on Linux; on any other system
 * none (the caller prints the URL to open by hand).
 */
export function browserCommand(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): BrowserCommand | undefined {
  const chosen = env['MUSTER_BROWSER'];
  if (chosen !== undefined && chosen.trim() !== '') return { program: chosen, args: [] };
  switch (platform) {
    case 'darwin':
      return { program: 'open', args: [] };
    case 'win32':
      return { program: 'rundll32', args: ['url.dll,FileProtocolHandler'] };
    case 'linux':
      return { program: 'xdg-open', args: [] };
    default:
      return undefined;
  }
}

/**
 * Starts `command` with `url` as its last argument (no shell, no inherited stdio) and
 * reports whether it started and, if it ended within a moment, whether it succeeded. Never
 * throws: a missing or failing browser, or none known on this system, only means the user
 * opens the printed URL.
 */
export function openBrowser(
  command: BrowserCommand | undefined,
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<BrowserOutcome> {
  if (command === undefined)
    return Promise.resolve({
      opened: false,
      reason: `no browser opener is known on ${process.platform}; set MUSTER_BROWSER to one`,
    });
  const { program, args } = command;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, [...args, url], { stdio: 'ignore', env: { ...env }, shell: false });
    } catch (err) {
      resolve({ opened: false, reason: (err as Error).message });
      return;
    }
    child.once('error', (err) => resolve({ opened: false, reason: err.message }));
    child.once('exit', (code, signal) =>
      resolve(
        code === 0
          ? { opened: true }
          : { opened: false, reason: `${program} exited with ${code ?? signal}` },
      ),
    );
    child.unref();
  });
}
