import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUserServers } from '../../src/cli/connect-user-servers.js';
import { scriptedModel } from '../../src/model/index.js';
import type { AuthorizationRequest } from '../../src/policy/index.js';
import { startStudio } from '../../src/studio/index.js';
import type { PendingApproval, RunningStudio, StudioEvent } from '../../src/studio/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { openEvents, signIn } from '../support/studio-client.js';
import type { SseReader, StudioClient } from '../support/studio-client.js';

// A connection asked about in the studio shows what it will run or reach (command, args,
// cwd, env names; URL origin and path, header names), and never an env value, a header value,
// a bearer token or a URL's query, neither in GET /api/approvals nor in approval.pending.

const canary = (what: string) => `CANARY${what}${randomBytes(12).toString('hex')}`;
const ENV = canary('ENV');
const HEADER = canary('HEADER');
const BEARER = canary('BEARER');
const QUERY = canary('QUERY');

let dir: string;
let studio: RunningStudio;
let client: StudioClient;
let events: SseReader;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'muster-connect-approval-'));
  studio = await startStudio({
    model: scriptedModel([{ text: 'Done.' }]),
    workdir: dir,
    home: join(dir, 'home'),
    default: 'ask',
  });
  client = await signIn(studio.url);
  events = await openEvents(client);
});
afterAll(async () => {
  events?.close();
  await studio?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Registers `config` as `name` and waits for its connection's approval on the stream. */
async function pendingConnection(
  name: string,
  config: Record<string, unknown>,
): Promise<{ approval: PendingApproval; registered: Promise<unknown> }> {
  // the registration waits for the approval: it is answered below
  const registered = client.post('/api/servers', { name, config });
  const event = await events.waitFor((e) => {
    const d = e.data as StudioEvent;
    return d.kind === 'approval.pending' && d.approval.request.server === name;
  }, `approval.pending for ${name}`);
  const approval = (event.data as StudioEvent & { kind: 'approval.pending' }).approval;
  const listed = (await client.get('/api/approvals')).json as PendingApproval[];
  expect(listed.find((a) => a.id === approval.id)?.request).toEqual(approval.request);
  return { approval, registered };
}

async function deny(approval: PendingApproval): Promise<void> {
  const reply = await client.post(`/api/approvals/${approval.id}`, { decision: 'deny' });
  expect(reply.status).toBe(200);
}

describe('a connection approval in the studio', () => {
  it('shows the stdio command, args, cwd and env names of a registered server', async () => {
    const marker = join(dir, 'touched');
    const { approval, registered } = await pendingConnection('shx', {
      command: 'sh',
      args: ['-c', `touch ${marker}`],
      cwd: dir,
      env: { MUSTER_CANARY: ENV },
    });
    const request: AuthorizationRequest = approval.request;
    expect(request).toMatchObject({ kind: 'connection', capability: 'mcp_connect:shx' });
    expect(request.connection).toEqual({
      transport: 'stdio',
      configSource: 'runtime',
      fingerprint: expect.any(String),
      command: 'sh',
      args: ['-c', `touch ${marker}`],
      cwd: dir,
      envKeys: ['MUSTER_CANARY'],
    });
    await deny(approval);
    await registered;
    // denied: nothing ran
    expect(existsSync(marker)).toBe(false);
  });

  it('shows an HTTP server by origin and path, and header names only', async () => {
    const { approval, registered } = await pendingConnection('remote', {
      type: 'http',
      url: `http://127.0.0.1:9/mcp/v1?key=${QUERY}`,
      headers: { 'X-Canary': HEADER, Authorization: `Bearer ${BEARER}` },
    });
    expect(approval.request.connection).toEqual({
      transport: 'http',
      configSource: 'runtime',
      fingerprint: expect.any(String),
      url: 'http://127.0.0.1:9/mcp/v1',
      headerNames: ['X-Canary', 'Authorization'],
    });
    await deny(approval);
    await registered;
  });

  it("marks a call an MCP Apps view asked for (fromApp), and not a person's", async () => {
    const { approval, registered } = await pendingConnection('basic', {
      ...stdioConfig('basic-server.mjs'),
    });
    await client.post(`/api/approvals/${approval.id}`, { decision: 'allow' });
    expect(((await registered) as { status: number }).status).toBe(201);
    const calls: Record<string, AuthorizationRequest> = {};
    for (const fromApp of [true, false]) {
      const answered = client.post('/api/servers/basic/tools/echo/call', {
        arguments: { text: 'hi' },
        fromApp,
      });
      const event = await events.waitFor((e) => {
        const d = e.data as StudioEvent;
        return (
          d.kind === 'approval.pending' &&
          d.approval.request.kind === 'tool' &&
          !Object.values(calls).some((r) => r === d.approval.request) &&
          d.approval.request.runId === (fromApp ? 'studio-app' : 'studio-call')
        );
      }, `the approval of a call with fromApp ${fromApp}`);
      const pending = (event.data as StudioEvent & { kind: 'approval.pending' }).approval;
      calls[String(fromApp)] = pending.request;
      await deny(pending);
      expect((await answered).status).toBe(403);
    }
    expect(calls['true']?.metadata).toEqual({ via: 'mcp-app-view' });
    expect(calls['false']?.metadata).toBeUndefined();
  });

  it('never carries an env value, a header value, a token or a query in what it sent', async () => {
    await events.waitFor(
      (e) => (e.data as StudioEvent).kind === 'approval.resolved',
      'approval.resolved',
    );
    const everything = [...client.seen, events.raw()].join('\n');
    expect(everything).toContain('MUSTER_CANARY');
    expect(everything).toContain('X-Canary');
    for (const secret of [ENV, HEADER, BEARER, QUERY]) expect(everything).not.toContain(secret);
  });
});

describe('item-01: a connection allowed for a declaration, not for a name', () => {
  // as `muster studio` starts it: the servers of the user's own file connect without asking
  let home: string;
  let own: RunningStudio;
  let ownClient: StudioClient;
  let ownEvents: SseReader;
  const declared = stdioConfig('basic-server.mjs');

  beforeAll(async () => {
    home = join(dir, 'own-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { mine: declared } }));
    // the agent reads the user file of MUSTER_HOME once, when it is built
    const previous = process.env['MUSTER_HOME'];
    process.env['MUSTER_HOME'] = home;
    try {
      own = await startStudio({
        model: scriptedModel([{ text: 'Done.' }]),
        workdir: dir,
        home,
        default: 'ask',
        rules: [connectUserServers(dir, home)],
      });
    } finally {
      if (previous === undefined) delete process.env['MUSTER_HOME'];
      else process.env['MUSTER_HOME'] = previous;
    }
    ownClient = await signIn(own.url);
    ownEvents = await openEvents(ownClient);
  });
  afterAll(async () => {
    ownEvents?.close();
    await own?.close();
  });

  const asked = (name: string) => (e: { data: unknown }) => {
    const d = e.data as StudioEvent;
    return d.kind === 'approval.pending' && d.approval.request.server === name;
  };
  const servers = async () =>
    (await ownClient.get('/api/servers')).json as { name: string; status: string }[];

  it('asks mcp_connect again when the name is registered with another command', async () => {
    // the user file's server connects on its own (the start's connect, or this one): nobody
    // was asked
    const reconnected = await ownClient.post('/api/servers/mine/reconnect', {});
    expect((reconnected.json as { status: string }).status).toBe('connected');
    expect(ownEvents.events.some(asked('mine'))).toBe(false);
    await deleteServer('mine');
    const marker = join(dir, 'other-command-ran');
    const registered = ownClient.post('/api/servers', {
      name: 'mine',
      config: { command: 'sh', args: ['-c', `touch ${marker}`] },
    });
    // the registration waits for a person (a permission bound to the name would not ask)
    const first = await Promise.race([
      registered.then(() => 'registered without asking'),
      ownEvents.waitFor(asked('mine'), 'approval.pending for mine').then(() => 'asked'),
    ]);
    expect(first).toBe('asked');
    const pending = (
      ownEvents.events.find(asked('mine'))!.data as StudioEvent & {
        kind: 'approval.pending';
      }
    ).approval;
    expect(pending.request.connection).toMatchObject({ command: 'sh', configSource: 'runtime' });
    await ownClient.post(`/api/approvals/${pending.id}`, { decision: 'deny' });
    // denied: nothing ran, and the candidate is not kept
    const refused = await registered;
    expect(refused.status).toBe(403);
    expect((refused.json as { error: { code: string } }).error.code).toBe('TOOL_DENIED');
    expect(existsSync(marker)).toBe(false);
    expect((await servers()).map((s) => s.name)).not.toContain('mine');
  });

  it('connects the declaration of the user file again without asking', async () => {
    const before = ownEvents.events.filter(asked('mine')).length;
    const registered = (await ownClient.post('/api/servers', { name: 'mine', config: declared }))
      .json as { status: string };
    expect(registered.status).toBe('connected');
    expect(ownEvents.events.filter(asked('mine')).length).toBe(before);
  });

  async function deleteServer(name: string): Promise<void> {
    const reply = await ownClient.delete(`/api/servers/${name}`);
    expect(reply.status).toBe(200);
  }
});
