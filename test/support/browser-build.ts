/**
 * Global setup of the browser suite: `npm run build` once (the library, the `muster` bin and
 * the studio's page in `dist/`), so every test file starts the studio as it ships.
 */
import { execFileSync } from 'node:child_process';
import { ROOT } from '../package/built-package.js';

/** Builds `dist/` with the package's own build script. */
export function setup(): void {
  const started = Date.now();
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`browser suite: npm run build took ${Math.round((Date.now() - started) / 1000)} s`);
}
