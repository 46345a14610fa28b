/**
 * `muster mcp auth` and `muster mcp logout` as a user runs them: the built bin, a real
 * authorization server and protected MCP server on loopback (test/fixtures/oauth), and a
 * stand-in browser program (MUSTER_BROWSER) that follows the printed URL through login and
 * consent to the CLI's callback listener. Tokens land in MUSTER_HOME/credentials.json.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, storedOAuthOptions } from '../../src/cli/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { ROOT } from '../package/built-package.js';
import { buildCli, runCommandsInProcess, runMuster } from '../support/cli.js';

const BROWSER = join(ROOT, 'test', 'fixtures', 'oauth', 'cli-browser.mjs');
const START_URL = /http:\/\/127\.0\.0\.1:\d+\/start\/[\w-]+/;

let cli: ReturnType<typeof buildCli>;
let world: OAuthWorld;
runCommandsInProcess();

beforeAll(async () => {
  cli = buildCli();
  world = await startOAuthWorld();
}, 120_000);
afterAll(async () => {
  await world?.close();
});

/** A project folder declaring the world's MCP server as `w`, and a fresh MUSTER_HOME. */
function project(): { cwd: string; home: string; log: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'muster-auth-project-'));
  mkdirSync(join(cwd, '.muster'));
  writeFileSync(
    join(cwd, '.muster', 'mcp.json'),
    JSON.stringify({ mcpServers: { w: { type: 'http', url: world.mcpUrl } } }, null, 2),
  );
  return {
    cwd,
    home: mkdtempSync(join(tmpdir(), 'muster-auth-home-')),
    log: join(cwd, 'browser.log'),
  };
}

interface StoredEntry {
  tokens?: { access_token: string; refresh_token?: string };
}

function storedEntries(home: string): StoredEntry[] {
  const file = JSON.parse(readFileSync(join(home, 'credentials.json'), 'utf8')) as {
    entries: Record<string, StoredEntry>;
  };
  return Object.values(file.entries);
}

/** Every secret of the login the browser saw: state, PKCE challenge, code. */
function loginSecrets(log: string): string[] {
  const urls = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((u) => new URL(u));
  const params = urls.flatMap((u) =>
    ['state', 'code_challenge', 'code'].map((k) => u.searchParams.get(k)),
  );
  return params.filter((v): v is string => v !== null && v.length >= 8);
}

const authArgs = ['mcp', 'auth', 'w', '--timeout', '60'];

/**
 * `w` (an OAuth server with no stored sign-in) shows `needs-auth` in `muster mcp list`, and
 * `muster mcp call` on it exits with the auth code, saying which command signs it in.
 */
async function expectNeedsAuth(cwd: string, home: string): Promise<void> {
  const env = { MUSTER_HOME: home, MUSTER_BROWSER: '/bin/false' };
  const list = await runMuster(cli.bin, ['--json', 'mcp', 'list'], { cwd, env });
  expect(list.code, list.stderr).toBe(0);
  const [server] = (
    JSON.parse(list.stdout) as {
      servers: { status: string; error?: { code: string; message: string } }[];
    }
  ).servers;
  expect(server?.status).toBe('needs-auth');
  expect(server?.error?.code).toBe('MCP_AUTH_REQUIRED');
  expect(server?.error?.message).toContain('run `muster mcp auth w`');
  const call = await runMuster(cli.bin, ['mcp', 'call', 'w', 'whoami'], { cwd, env });
  expect(call.code).toBe(EXIT_CODES.auth);
  expect(call.stderr).toContain('error [MCP_AUTH_REQUIRED]');
  expect(call.stderr).toContain('run `muster mcp auth w`');
}

/** The status of a GET to 127.0.0.1:`port` that names `host` in its Host header. */
function getWithHost(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

/**
 * Starts `muster mcp auth w` in a new project with a browser program that fails, and resolves
 * once it printed the URL to open and said the browser failed (it then waits for the sign-in).
 */
async function authWithoutBrowser(): Promise<{
  home: string;
  url: string;
  exited: Promise<number | null>;
  output: { stdout: string; stderr: string };
}> {
  const { cwd, home } = project();
  const child = spawn(process.execPath, [cli.bin, ...authArgs, '--allowed-origin', world.issuer], {
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? tmpdir(),
      MUSTER_HOME: home,
      MUSTER_BROWSER: '/bin/false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve) => {
    child.stderr.on('data', (d: Buffer) => {
      output.stderr += d.toString();
      const printed = START_URL.exec(output.stderr);
      if (printed && output.stderr.includes('Could not open a browser')) resolve(printed[0]);
    });
  });
  return { home, url, exited, output };
}

describe('muster mcp auth', () => {
  it('signs in through the browser program, keeps the token in the file store (0600), prints no secret', async () => {
    const { cwd, home, log } = project();
    const env = { MUSTER_HOME: home, MUSTER_BROWSER: BROWSER, OAUTH_BROWSER_LOG: log };
    const run = await runMuster(cli.bin, [...authArgs, '--allowed-origin', world.issuer], {
      cwd,
      env,
    });
    expect(run.stderr).toMatch(START_URL);
    expect(run.stdout).toContain("Signed in to 'w'");
    expect(run.code).toBe(0);

    const credentials = join(home, 'credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const [entry] = storedEntries(home);
    const token = entry?.tokens?.access_token ?? '';
    expect(token.length).toBeGreaterThan(20);
    const secrets = [token, entry?.tokens?.refresh_token ?? '', ...loginSecrets(log)];
    expect(secrets.filter((s) => s.length > 0).length).toBeGreaterThanOrEqual(4);
    for (const secret of secrets.filter((s) => s.length > 0)) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }

    // another command's manager picks the sign-in up from the file store, with no browser
    const oauth = await storedOAuthOptions(cwd, home);
    expect(Object.keys(oauth)).toEqual(['w']);
    const manager = new McpClientManager({}, { workdir: cwd, oauth });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      const me = (await manager.callTool('w', 'whoami')).structuredContent as { sub?: string };
      expect(me.sub).toBe('user-1');
    } finally {
      await manager.close();
    }
    // and so does the CLI's own: muster mcp call reaches the signed-in server as the user
    const call = await runMuster(cli.bin, ['--json', 'mcp', 'call', 'w', 'whoami'], {
      cwd,
      env: { MUSTER_HOME: home, MUSTER_BROWSER: '/bin/false' },
    });
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('user-1');

    // signed in already: no browser, no new login; the expired token is refreshed at the
    // authorization server the sign-in used, without --allowed-origin this time
    world.advanceClock(301);
    const before = world.counters().authorizationRequests;
    const refreshes = world.counters().tokenRequests.refresh_token ?? 0;
    const again = await runMuster(cli.bin, [...authArgs, '--json'], {
      cwd,
      env: { MUSTER_HOME: home, MUSTER_BROWSER: '/bin/false' },
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ server: 'w', signedIn: true, login: false });
    expect(world.counters().authorizationRequests).toBe(before);
    expect(world.counters().tokenRequests.refresh_token).toBe(refreshes + 1);

    // logout removes the stored tokens
    const out = await runMuster(cli.bin, ['mcp', 'logout', 'w'], {
      cwd,
      env: { MUSTER_HOME: home },
    });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Signed out of 'w'");
    expect(out.stdout).toContain('tokens');
    expect(out.stdout).not.toContain(token);
    expect(readFileSync(credentials, 'utf8')).not.toContain(token);
    expect(storedEntries(home)).toEqual([]);
    const twice = await runMuster(cli.bin, ['--json', 'mcp', 'logout', 'w'], {
      cwd,
      env: { MUSTER_HOME: home },
    });
    expect(twice.code).toBe(0);
    expect(JSON.parse(twice.stdout)).toMatchObject({ server: 'w', removed: [] });

    // item-02: signed out, the server asks for a sign-in again
    await expectNeedsAuth(cwd, home);
  });

  it('item-02: a server never signed in shows needs-auth, and a call exits 4 naming muster mcp auth', async () => {
    const { cwd, home } = project();
    await expectNeedsAuth(cwd, home);
    const human = await runMuster(cli.bin, ['mcp', 'list'], { cwd, env: { MUSTER_HOME: home } });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^w +project +http +needs-auth *$/m);
    expect(human.stdout).toContain('run `muster mcp auth w`');
    const tools = await runMuster(cli.bin, ['mcp', 'tools', 'w'], {
      cwd,
      env: { MUSTER_HOME: home },
    });
    expect(tools.code).toBe(EXIT_CODES.auth);
    expect(tools.stderr).toContain('run `muster mcp auth w`');
  });

  it('prints the URL when the browser program fails, and exits with the auth code at the timeout', async () => {
    const { cwd, home } = project();
    const run = await runMuster(
      cli.bin,
      ['mcp', 'auth', 'w', '--allowed-origin', world.issuer, '--timeout', '2'],
      { cwd, env: { MUSTER_HOME: home, MUSTER_BROWSER: '/bin/false' } },
    );
    expect(run.stderr).toMatch(START_URL);
    expect(run.stderr).toContain('Could not open a browser');
    expect(run.stderr).toContain('MCP_AUTH_REQUIRED');
    expect(run.code).toBe(EXIT_CODES.auth);
    const stored = existsSync(join(home, 'credentials.json')) ? storedEntries(home) : [];
    expect(stored.every((entry) => entry.tokens === undefined)).toBe(true);
  });

  it('refuses an authorization server on another origin unless --allowed-origin names it', async () => {
    const { cwd, home } = project();
    const run = await runMuster(cli.bin, authArgs, {
      cwd,
      env: { MUSTER_HOME: home, MUSTER_BROWSER: BROWSER },
    });
    expect(run.code).toBe(EXIT_CODES.auth);
    expect(run.stderr).toContain(world.issuer);
    expect(run.stderr).toContain('--allowed-origin');
    expect(existsSync(join(home, 'credentials.json')) ? storedEntries(home) : []).toEqual([]);
  });

  it('keeps waiting after the browser failed, until the user opens the printed URL', async () => {
    const { home, url, exited, output } = await authWithoutBrowser();
    // the user (on another machine, say) opens the printed URL once the browser failed
    const browser = spawn(process.execPath, [BROWSER, url], { stdio: 'ignore' });
    expect(await new Promise((resolve) => browser.once('exit', resolve))).toBe(0);
    expect(await exited).toBe(0);
    expect(output.stdout).toContain("Signed in to 'w'");
    expect(storedEntries(home)[0]?.tokens?.access_token).toBeTruthy();
  });

  it('item-01: a forged callback (wrong state, or wrong Host) cannot fail the sign-in', async () => {
    const { home, url, exited, output } = await authWithoutBrowser();
    // another page on this machine finds the listener's port and sends it callbacks: with a
    // guessed state, and (having learnt the state) through a host name it rebound to 127.0.0.1
    const origin = new URL(url).origin;
    const port = Number(new URL(url).port);
    const started = await fetch(url, { redirect: 'manual' });
    const state = new URL(started.headers.get('location') ?? '').searchParams.get('state') ?? '';
    expect(state.length).toBeGreaterThan(20);
    const wrongState = await fetch(`${origin}/callback?error=access_denied&state=guessed`);
    expect(wrongState.status).toBe(400);
    const wrongHost = await getWithHost(
      port,
      `/callback?error=access_denied&state=${encodeURIComponent(state)}`,
      `rebound.example:${port}`,
    );
    expect(wrongHost).toBe(400);
    // the user's browser then finishes the sign-in
    const browser = spawn(process.execPath, [BROWSER, url], { stdio: 'ignore' });
    expect(await new Promise((resolve) => browser.once('exit', resolve))).toBe(0);
    expect(await exited, output.stderr).toBe(0);
    expect(output.stdout).toContain("Signed in to 'w'");
    expect(storedEntries(home)[0]?.tokens?.access_token).toBeTruthy();
  });

  it('refuses a stdio server and an unknown name with the usage code', async () => {
    const { cwd, home } = project();
    writeFileSync(
      join(home, 'mcp.json'),
      JSON.stringify({ mcpServers: { local: { command: process.execPath, args: ['-e', '0'] } } }),
    );
    const stdio = await runMuster(cli.bin, ['mcp', 'auth', 'local'], {
      cwd,
      env: { MUSTER_HOME: home },
    });
    expect(stdio.code).toBe(EXIT_CODES.usage);
    expect(stdio.stderr).toContain('only remote (http) servers');
    const unknown = await runMuster(cli.bin, ['mcp', 'logout', 'nope'], {
      cwd,
      env: { MUSTER_HOME: home },
    });
    expect(unknown.code).toBe(EXIT_CODES.usage);
    expect(unknown.stderr).toContain("No MCP server 'nope'");
  });
});
