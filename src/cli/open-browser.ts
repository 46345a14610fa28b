import { spawn } from 'node:child_process';

/** How {@link openBrowser} went: opened, or why not (for a notice; the URL is printed anyway). */
export type BrowserOutcome = { readonly opened: true } | { readonly opened: false; reason: string };

/** The program that opens URLs: `MUSTER_BROWSER`, else `open` (macOS) or `xdg-open`. */
export function browserProgram(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): string {
  const chosen = env['MUSTER_BROWSER'];
  if (chosen !== undefined && chosen.trim() !== '') return chosen;
  return platform === 'darwin' ? 'open' : 'xdg-open';
}

/**
 * Starts `program` with `url` as its only argument (no shell, no inherited stdio) and
 * reports whether it started and, if it ended within a moment, whether it succeeded. Never
 * throws: a missing or failing browser only means the user opens the printed URL.
 */
export function openBrowser(
  program: string,
  url: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<BrowserOutcome> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, [url], { stdio: 'ignore', env: { ...env }, shell: false });
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
