import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { signIn } from '../support/studio-client.js';
import { runnableScript } from '../support/ts-script.js';

// `muster studio` as a person runs it: a real process (the sources bundled into one module), its stdout
// and exit code, Ctrl-C as SIGINT.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

interface Started {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

function muster(args: readonly string[], env: Record<string, string> = {}): Started {
  const cwd = mkdtempSync(join(tmpdir(), 'studio-cli-'));
  // run from the repository, on a project folder of its own
  const child = spawn(process.execPath, [runnableScript(MAIN), '-C', cwd, ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: cwd,
      MUSTER_HOME: join(cwd, 'home'),
      MUSTER_BROWSER: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

describe('muster studio', () => {
  it('refuses a non-loopback --host with exit code 2', async () => {
    const run = muster(['studio', '--host', '0.0.0.0']);
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('INVALID_CONFIGURATION');
    expect(run.stderr()).toContain('127.0.0.1');
    expect(run.stdout()).toBe('');
  });

  it('--open hands the browser a private file that redirects, never the token; deletes it on stop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-browser-'));
    const record = join(dir, 'opened.json');
    // the "browser": records its arguments and what it found at the path it was given
    const recorder = join(dir, 'record.mjs');
    writeFileSync(
      recorder,
      `import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
const file = args[0] ?? '';
const found = existsSync(file);
writeFileSync(${JSON.stringify(record + '.tmp')}, JSON.stringify({
  args,
  found,
  mode: found ? statSync(file).mode & 0o777 : null,
  html: found ? readFileSync(file, 'utf8') : '',
}));
renameSync(${JSON.stringify(record + '.tmp')}, ${JSON.stringify(record)});`,
    );
    const browser = join(dir, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nexec "${process.execPath}" "${recorder}" "$@"\n`);
    chmodSync(browser, 0o755);
    const run = muster(['studio', '--port', '0', '--open'], { MUSTER_BROWSER: browser });
    // the URL is printed, then the browser started: wait for both
    const url = await new Promise<string>((resolve, reject) => {
      const poll = setInterval(() => {
        const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(run.stdout());
        if (m === null || !existsSync(record)) return;
        clearInterval(poll);
        resolve(m[0]);
      }, 50);
      void run.exited.then((code) => {
        clearInterval(poll);
        reject(new Error(`exited ${code}: ${run.stderr()}`));
      });
    });
    const token = new URL(url).searchParams.get('token')!;
    const opened = JSON.parse(readFileSync(record, 'utf8')) as {
      args: string[];
      found: boolean;
      mode: number | null;
      html: string;
    };
    expect(opened.args).toHaveLength(1);
    expect(opened.args.join(' ')).not.toContain(token);
    expect(opened.found).toBe(true);
    expect(opened.mode).toBe(0o600);
    // the file sends the browser on to the token URL
    expect(opened.html).toContain(url);
    expect(existsSync(opened.args[0]!)).toBe(true);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(existsSync(opened.args[0]!)).toBe(false);
  });

  it('prints the URL with the token once, serves it, and stops cleanly on Ctrl-C', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-model-'));
    const turns = join(dir, 'turns.json');
    writeFileSync(turns, JSON.stringify([{ text: 'hello' }]));
    const run = muster(['studio', '--port', '0', '--model', `scripted:${turns}`, '--open']);
    const url = await new Promise<string>((resolve, reject) => {
      const check = (): void => {
        const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(run.stdout());
        if (m) resolve(m[0]);
      };
      run.child.stdout!.on('data', check);
      void run.exited.then((code) => reject(new Error(`exited ${code}: ${run.stderr()}`)));
    });
    const client = await signIn(url);
    const info = await client.get('/api/info');
    expect(info.status).toBe(200);
    expect(info.json).toMatchObject({ model: 'scripted' });
    const token = new URL(url).searchParams.get('token')!;
    expect(run.stdout().split(token).length - 1).toBe(1);
    expect(run.stderr()).not.toContain(token);

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.stdout().split(token).length - 1).toBe(1);
  });
});
