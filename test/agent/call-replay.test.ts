import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { Agent, ModelRequest, PolicyOptions, ToolResultMessage } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { startChild } from '../support/child-agent.js';
import { collect, ofType } from '../support/run-helpers.js';

// SPEC 15.5, `mcp.replay`: a call in flight when its process died is TOOL_OUTCOME_UNKNOWN on
// resume, unless `mcp.replay: 'idempotent'` and its MCP tool is annotated `idempotentHint` or
// `readOnlyHint`: then it is sent once more (same arguments, same idempotency key) and its
// result reaches the model. A real process is SIGKILLed while the call-log server (a real
// stdio server) holds the call; the store is a real SQLite file; the server counts the calls.

const CHILD = 'test/fixtures/replay/replay-agent.ts';
const SERVER = fileURLToPath(new URL('../fixtures/mcp/call-log-server.mjs', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'muster-replay-'));
const db = join(dir, 'sessions.db');
const log = join(dir, 'calls.log');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The gate calls the server received for session `id`: the process and the idempotency key. */
function gateCalls(id: string): { pid: number; key: string }[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f[0] === 'gate' && f[1] === id)
    .map((f) => ({ pid: Number(f[2]), key: f[3]! }));
}

const openGate = (id: string) => writeFileSync(`${log}.open-${id}`, '');

/**
 * A process runs session `id` (or resumes it) and is SIGKILLed once the server holds its
 * call to `tool`: the call's start is committed, its result never is.
 */
async function crashed(
  id: string,
  tool: string,
  mode: 'run' | 'resume' = 'run',
  replay: 'never' | 'idempotent' = 'never',
): Promise<void> {
  const seen = gateCalls(id).length;
  const child = startChild(CHILD, {
    REPLAY_DB: db,
    REPLAY_SESSION: id,
    REPLAY_LOG: log,
    REPLAY_TOOL: tool,
    REPLAY_MODE: mode,
    REPLAY_POLICY: replay,
  });
  try {
    await vi.waitFor(() => expect(gateCalls(id).length, child.stderr()).toBe(seen + 1), {
      timeout: 20_000,
      interval: 20,
    });
  } finally {
    child.child.kill('SIGKILL');
  }
  expect((await child.exited).signal).toBe('SIGKILL');
}

/** An agent on the same store and server that resumes sessions, answering with the result. */
function resumer(
  store: SqliteSessionStore,
  replay: 'never' | 'idempotent' | undefined,
  policy: PolicyOptions = { allow: ['mcp_connect:*', 'mcp__*'] },
  waits?: { ttlMs: number },
): Agent {
  const turn = (request: ModelRequest) => {
    const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
    return { text: `got: ${result?.content ?? 'nothing'}` };
  };
  return createAgent({
    model: scriptedModel(Array.from({ length: 5 }, () => turn)),
    mcpServers: { log: { command: process.execPath, args: [SERVER, `--log=${log}`] } },
    mcp: { strictConfig: true, ...(replay !== undefined ? { replay } : {}) },
    policy,
    sessionStore: store,
    ...(waits ? { waits } : {}),
  });
}

/** Resumes `id` once the killed process's lease expired; the run's events and error. */
async function resume(agent: Agent, store: SqliteSessionStore, id: string) {
  await vi.waitFor(async () => expect(await store.leased(id)).toBe(false), {
    timeout: 10_000,
    interval: 50,
  });
  return collect(agent.resume(id));
}

describe('calls in flight at a crash', () => {
  /**
   * Resumes session `id` under `replay`: its gated call is TOOL_OUTCOME_UNKNOWN for the model
   * and the server saw it `sent` times in all.
   */
  async function resumesUnknown(id: string, replay: 'idempotent' | undefined, sent: number) {
    const store = new SqliteSessionStore({ path: db });
    const agent = resumer(store, replay);
    try {
      const { events, error } = await resume(agent, store, id);
      expect(error).toBeUndefined();
      expect(ofType(events, 'tool.completed')).toMatchObject([
        { callId: 'call_gate', errorCode: 'TOOL_OUTCOME_UNKNOWN', executed: true },
      ]);
      expect(ofType(events, 'session.completed')[0]!.content).toMatch(
        /^got: Error \[TOOL_OUTCOME_UNKNOWN\]/,
      );
      expect(gateCalls(id)).toHaveLength(sent);
    } finally {
      await agent.close();
      store.close();
    }
  }

  it("mcp.replay 'never' (the default): an annotated call in flight is TOOL_OUTCOME_UNKNOWN and is not sent again", async () => {
    await crashed('never', 'gate_idempotent');
    openGate('never');
    await resumesUnknown('never', undefined, 1);
  });

  it("mcp.replay 'idempotent': a call of a tool annotated idempotentHint or readOnlyHint is sent once more, with the same idempotency key, and the model gets its result", async () => {
    await Promise.all([crashed('idem', 'gate_idempotent'), crashed('ro', 'gate_readonly')]);
    openGate('idem');
    openGate('ro');
    const store = new SqliteSessionStore({ path: db });
    const agent = resumer(store, 'idempotent');
    try {
      for (const id of ['idem', 'ro']) {
        const { events, error } = await resume(agent, store, id);
        expect(error).toBeUndefined();
        expect(ofType(events, 'tool.completed')).toMatchObject([
          { callId: 'call_gate', isError: false, executed: true, content: `passed ${id}` },
        ]);
        expect(ofType(events, 'session.completed')[0]!.content).toBe(`got: passed ${id}`);
        // twice in all: the call the killed process sent, and the one replay
        const calls = gateCalls(id);
        expect(calls).toHaveLength(2);
        expect(calls.map((c) => c.key)).toEqual([`${id}:call_gate`, `${id}:call_gate`]);
        const state = await store.get(id);
        expect(state?.startedCalls).toEqual(['call_gate', 'replay:call_gate']);
        expect(state?.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
      }
    } finally {
      await agent.close();
      store.close();
    }
  });

  it("mcp.replay 'idempotent': a call of an unannotated tool stays TOOL_OUTCOME_UNKNOWN", async () => {
    await crashed('plain', 'gate');
    openGate('plain');
    await resumesUnknown('plain', 'idempotent', 1);
  });

  it('a replay in flight at a second crash is TOOL_OUTCOME_UNKNOWN: the call is never sent a third time', async () => {
    await crashed('twice', 'gate_idempotent');
    // the resuming process replays the call, and is killed while the server holds it
    await crashed('twice', 'gate_idempotent', 'resume', 'idempotent');
    openGate('twice');
    await resumesUnknown('twice', 'idempotent', 2);
  });

  it('the policy applies to the replay: a call it now denies is not sent again and stays TOOL_OUTCOME_UNKNOWN', async () => {
    await crashed('denied', 'gate_idempotent');
    openGate('denied');
    const store = new SqliteSessionStore({ path: db });
    const agent = resumer(store, 'idempotent', {
      allow: ['mcp_connect:*', 'mcp__*'],
      deny: ['mcp__log__gate_idempotent'],
    });
    try {
      const { events, error } = await resume(agent, store, 'denied');
      expect(error).toBeUndefined();
      const [completed] = ofType(events, 'tool.completed');
      expect(completed).toMatchObject({
        callId: 'call_gate',
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
        executed: true,
        isError: true,
      });
      expect(completed!.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\].*not sent again/);
      const result = (await store.get('denied'))!.messages.findLast((m) => m.role === 'tool');
      expect(result).toMatchObject({ content: completed!.content, isError: true });
      expect(gateCalls('denied')).toHaveLength(1);
    } finally {
      await agent.close();
      store.close();
    }
  });

  it('a replay that parks on an approval stays a replay: denied, or its wait expired, it is TOOL_OUTCOME_UNKNOWN (not sent again); approved, it is sent once', async () => {
    const ids = ['pdeny', 'pexpire', 'pallow'];
    // one at a time: three processes at once on a short lease lose it on a busy machine
    for (const id of ids) await crashed(id, 'gate_idempotent');
    for (const id of ids) openGate(id);
    const store = new SqliteSessionStore({ path: db });
    // the tool now asks for an approval, and nobody is there to give it: the replay parks
    const ask: PolicyOptions = { allow: ['mcp_connect:*'], park: true };
    const agent = resumer(store, 'idempotent', ask);
    const expiring = resumer(store, 'idempotent', ask, { ttlMs: 1 });
    try {
      for (const id of ids) {
        const { events, error } = await resume(id === 'pexpire' ? expiring : agent, store, id);
        expect(error).toBeUndefined();
        expect(ofType(events, 'session.parked')[0]!.waits).toMatchObject([
          { kind: 'approval', callId: 'call_gate' },
        ]);
      }
      const waitOf = async (id: string) => (await agent.sessions.waits({ sessionId: id })).waits;
      await agent.decide('pdeny', (await waitOf('pdeny'))[0]!.id, { decision: 'deny' });
      await agent.decide('pallow', (await waitOf('pallow'))[0]!.id, { decision: 'allow' });
      for (const id of ['pdeny', 'pexpire']) {
        const { events, error } = await collect(agent.resume(id));
        expect(error).toBeUndefined();
        const [completed] = ofType(events, 'tool.completed');
        expect(completed).toMatchObject({
          callId: 'call_gate',
          errorCode: 'TOOL_OUTCOME_UNKNOWN',
          executed: true,
        });
        expect(completed!.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\].*not sent again/);
        // sent once, by the process that was killed
        expect(gateCalls(id)).toHaveLength(1);
      }
      const { events, error } = await collect(agent.resume('pallow'));
      expect(error).toBeUndefined();
      expect(ofType(events, 'tool.completed')).toMatchObject([
        { callId: 'call_gate', isError: false, executed: true, content: 'passed pallow' },
      ]);
      expect(gateCalls('pallow').map((c) => c.key)).toEqual([
        'pallow:call_gate',
        'pallow:call_gate',
      ]);
    } finally {
      await agent.close();
      await expiring.close();
      store.close();
    }
  });

  it('any other mcp.replay value is INVALID_CONFIGURATION naming the field', () => {
    let caught: unknown;
    try {
      createAgent({ mcp: { replay: 'always' as 'never' } });
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((caught as Error).message).toMatch(/replay/);
  });
});
