import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The programs a private Secret Service needs (Debian: gnome-keyring, dbus). */
export const SECRET_SERVICE_PROGRAMS = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon'];

/** The programs of {@link SECRET_SERVICE_PROGRAMS} that are not on the PATH. */
export function missingSecretServicePrograms(): string[] {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean);
  const found = (program: string) =>
    dirs.some((dir) => {
      try {
        accessSync(join(dir, program), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return SECRET_SERVICE_PROGRAMS.filter((p) => !found(p));
}

/** A GNOME Keyring on a D-Bus session bus of its own, with its home in a temporary folder. */
export interface SecretService {
  /** The environment of a process that should use this keyring (and no other). */
  readonly env: Record<string, string>;
  /** How many items the keyring holds with exactly these attributes (through D-Bus). */
  countItems(attributes: Record<string, string>): Promise<number>;
  /** Stops the keyring and the bus, and removes their folders. */
  stop(): Promise<void>;
}

/** The first line `child` prints on stdout; fails if it exits first. */
async function firstLine(child: ChildProcess, what: string): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  const line = once(lines, 'line').then(([l]) => String(l));
  const exit = once(child, 'exit').then(([code]) => {
    throw new Error(`${what} exited (${String(code)}) before it was ready`);
  });
  try {
    return await Promise.race([line, exit]);
  } finally {
    lines.close();
  }
}

/**
 * Starts `dbus-daemon --session` and `gnome-keyring-daemon --unlock` on it (its login keyring
 * made with an empty password), and resolves once the keyring serves a default collection.
 * Every folder the two use (HOME, XDG_*) is a new temporary one, so the user's keyring is
 * never touched.
 */
export async function startSecretService(): Promise<SecretService> {
  const root = mkdtempSync(join(tmpdir(), 'muster-keyring-'));
  const home = join(root, 'home');
  const runtime = join(root, 'run');
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(runtime, { mode: 0o700 });
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(bus);
    env['DBUS_SESSION_BUS_ADDRESS'] = (await firstLine(bus, 'dbus-daemon')).trim();

    const keyring = spawn(
      'gnome-keyring-daemon',
      ['--foreground', '--unlock', '--components=secrets'],
      { env, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    children.push(keyring);
    keyring.stdin!.end('\n'); // the login keyring's password: empty

    const send = (dest: string, path: string, method: string, ...args: string[]) =>
      run('dbus-send', ['--session', '--print-reply', `--dest=${dest}`, path, method, ...args], {
        env,
      }).then(({ stdout }) => stdout);
    // Ready when the keyring owns its name (asked of the bus, so that no second keyring is
    // started by D-Bus activation) and has made the default collection. Bounded: 400 tries.
    for (let attempt = 0; ; attempt += 1) {
      if (keyring.exitCode !== null) throw new Error('gnome-keyring-daemon exited at start');
      const owned = await send(
        'org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets',
      );
      if (owned.includes('boolean true')) {
        const alias = await send(
          'org.freedesktop.secrets',
          '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service.ReadAlias',
          'string:default',
        );
        if (/object path "\/org\/freedesktop\/secrets\/collection\//.test(alias)) break;
      }
      if (attempt >= 400) throw new Error('gnome-keyring-daemon made no default collection');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    const countItems = async (attributes: Record<string, string>) => {
      const dict = Object.entries(attributes).flat();
      if (dict.some((s) => s.includes(','))) throw new Error('dbus-send cannot pass a comma');
      const reply = await send(
        'org.freedesktop.secrets',
        '/org/freedesktop/secrets',
        'org.freedesktop.Secret.Service.SearchItems',
        `dict:string:string:${dict.join(',')}`,
      );
      return (reply.match(/object path "/g) ?? []).length;
    };
    return { env, countItems, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
