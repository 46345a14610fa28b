/**
 * The real studio as a user starts it: `node dist/cli/main.js studio --port 0 ...` (the
 * repository's build, made by the browser suite's global setup), with MUSTER_HOME and the
 * workdir in fresh temporary folders, the servers declared in `<workdir>/.muster/mcp.json`,
 * and a scripted model. The printed URL (with its one-time token) is read from stdout.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ScriptedTurnSpec } from '../../src/model/index.js';
import { ROOT } from '../package/built-package.js';

/** The built bin the studio runs from (`npm run build`). */
export const STUDIO_BIN = join(ROOT, 'dist', 'cli', 'main.js');

/** The built page the studio serves (`npm run build` runs `vite build` into it). */
export const STUDIO_UI = join(ROOT, 'dist', 'studio-ui', 'index.html');

/** The first studio URL printed: `http://127.0.0.1:<port>/?token=<token>`. */
export const STUDIO_URL = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)/;

/** Options of {@link startStudioProcess}. */
export interface StudioProcessOptions {
  /** The `mcpServers` entries of `<workdir>/.muster/mcp.json`. */
  readonly servers: Readonly<Record<string, unknown>>;
  /** The scripted model's turns (`--model scripted:<file>`); none: `[{ text: 'Done.' }]`. */
  readonly turns?: readonly ScriptedTurnSpec[];
  /** More arguments after `studio` (policy: `--allow`, `--deny`, `--default`; `--allowed-origin`). */
  readonly args?: readonly string[];
  /** Added to the clean environment the studio gets. */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for the URL. Default 60 s. */
  readonly startTimeoutMs?: number;
}

/** A running studio process. */
export interface StudioProcess {
  /** The printed URL, token included: opening it signs the browser in. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  readonly workdir: string;
  readonly home: string;
  /** Everything the process printed so far. */
  output(): { readonly stdout: string; readonly stderr: string };
  /** SIGINT, then SIGKILL after 5 s; removes the temporary folders. Idempotent. */
  close(): Promise<void>;
}

/** Fails with what to do when the build the studio needs is missing. */
export function assertStudioBuilt(): void {
  for (const file of [STUDIO_BIN, STUDIO_UI]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run npm run build (the browser suite runs it first).`);
    }
  }
}

/** The temporary folders of one studio start. */
export interface StudioProject {
  readonly root: string;
  readonly workdir: string;
  readonly home: string;
  /** The scripted model's turns file. */
  readonly turnsFile: string;
}

/**
 * Creates `<root>/project/.muster/mcp.json` declaring `servers`, an empty MUSTER_HOME at
 * `<root>/home`, and the scripted model's turns file.
 */
export function createStudioProject(
  servers: Readonly<Record<string, unknown>>,
  turns: readonly ScriptedTurnSpec[] = [{ text: 'Done.' }],
): StudioProject {
  const root = mkdtempSync(join(tmpdir(), 'muster-studio-'));
  const workdir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(join(workdir, '.muster'), { recursive: true });
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(workdir, '.muster', 'mcp.json'),
    `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`,
  );
  const turnsFile = join(root, 'turns.json');
  writeFileSync(turnsFile, JSON.stringify(turns));
  return { root, workdir, home, turnsFile };
}

/** The environment the studio (and any `muster` the tests run) gets: clean, home in `home`. */
export function studioEnv(
  home: string,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    MUSTER_HOME: home,
    NO_COLOR: '1',
    ...extra,
  };
}

/** Starts the studio; resolves once it printed its URL, rejects if it exits before. */
export async function startStudioProcess(options: StudioProcessOptions): Promise<StudioProcess> {
  assertStudioBuilt();
  const { root, workdir, home, turnsFile } = createStudioProject(options.servers, options.turns);

  const args = [
    STUDIO_BIN,
    '--workdir',
    workdir,
    'studio',
    '--port',
    '0',
    '--model',
    `scripted:${turnsFile}`,
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: workdir,
    env: studioEnv(home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let match: RegExpMatchArray;
  try {
    match = await waitForUrl(
      child,
      () => stdout,
      () => stderr,
      options.startTimeoutMs ?? 60_000,
    );
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const port = Number(match[1]);
  const token = match[2] ?? '';
  let closing: Promise<void> | undefined;
  return {
    url: match[0],
    origin: `http://127.0.0.1:${port}`,
    port,
    token,
    workdir,
    home,
    output: () => ({ stdout, stderr }),
    close: () =>
      (closing ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGINT');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(root, { recursive: true, force: true });
      })()),
  };
}

function waitForUrl(
  child: ChildProcess,
  stdout: () => string,
  stderr: () => string,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error, match?: RegExpMatchArray) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (match) resolve(match);
      else reject(error ?? new Error('the studio printed no URL'));
    };
    const onData = () => {
      const match = STUDIO_URL.exec(stdout());
      if (match) done(undefined, match);
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(
        new Error(
          `muster studio exited (${code ?? signal}) before printing its URL.\nstdout: ${stdout()}\nstderr: ${stderr()}`,
        ),
      );
    const timer = setTimeout(
      () =>
        done(
          new Error(
            `muster studio printed no URL within ${timeoutMs} ms.\nstdout: ${stdout()}\nstderr: ${stderr()}`,
          ),
        ),
      timeoutMs,
    );
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

/**
 * One studio for a `describe` block: started before its tests with the options `options()`
 * gives then (so they may use what earlier `beforeAll` hooks made), closed after them. The
 * returned process reads the running one; using it outside a test throws.
 */
export function useStudioProcess(options: () => StudioProcessOptions): StudioProcess {
  let started: StudioProcess | undefined;
  beforeAll(async () => {
    started = await startStudioProcess(options());
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): StudioProcess => {
    if (started === undefined) throw new Error('The studio starts in beforeAll: use it in a test.');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get origin() {
      return current().origin;
    },
    get port() {
      return current().port;
    },
    get token() {
      return current().token;
    },
    get workdir() {
      return current().workdir;
    },
    get home() {
      return current().home;
    },
    output: () => current().output(),
    close: async () => {
      await started?.close();
    },
  };
}
