import { homedir } from 'node:os';
import { join } from 'node:path';

/** The folder of user-level Muster files: `MUSTER_HOME`, else `~/.muster`. */
export function musterHome(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const override = env['MUSTER_HOME'];
  return override && override.trim() !== '' ? override : join(homedir(), '.muster');
}
