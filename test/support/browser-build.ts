/**
 * Global setup of the browser suite: `npm run build` once (the library, the `muster` bin and
 * the studio's page in `dist/`), so every test file starts the studio as it ships. A `dist/`
 * that is already a finished build of the current sources (its build stamp says so, as after
 * `.ci/run`'s build step) is used as it is.
 */
import { execFileSync } from 'node:child_process';
import { distIsCurrent } from '../../scripts/build-stamp.mjs';
import { ROOT } from '../package/built-package.js';

/** Builds `dist/` with the package's own build script, unless it is current. */
export function setup(): void {
  if (distIsCurrent(ROOT)) {
    console.log('browser suite: dist/ is a build of the current sources; not building again');
    return;
  }
  const started = Date.now();
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`browser suite: npm run build took ${Math.round((Date.now() - started) / 1000)} s`);
}
