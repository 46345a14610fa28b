/**
 * The pool of principals' connections (SPEC 15.4) where the first tests of
 * principal-connections.test.ts do not go: a full pool with no idle connection (the caller
 * waits, is woken when one frees, and an abort ends its wait), a server's requests on two
 * principals' connections at once (each reaches only its own principal's run), the resource
 * tools for a principal, and the Tasks extension (not offered on a principal's connection).
 * Against a real authorization server (oidc-provider) and the real per-user MCP server, whose
 * `hold` tool answers only once the test lets it go; the tasks test uses the real Tasks
 * fixture process over Streamable HTTP.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryTokenStore, oauthNamespace, osUser } from '../../src/auth/index.js';
import type { TokenStore } from '../../src/auth/index.js';
import { createAgent, scriptedModel } from '../../src/index.js';
import type {
  Agent,
  AgentEvent,
  AuthorizationEvent,
  McpRequestOrigin,
  ModelRequest,
} from '../../src/index.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld, PerUserSessions } from '../fixtures/oauth/index.js';
import { collect, ofType } from '../support/run-helpers.js';
import { startTasksFixture } from '../mcp/tasks/tasks-fixture.js';
import { REDIRECT_URI } from './oauth-support.js';

let world: OAuthWorld;
let perUser: PerUserSessions;

/** Calls of `hold` the server is answering, by subject: each resolves when let go. */
const held = new Map<string, (() => void)[]>();
const holding = (sub: string) => held.get(sub)?.length ?? 0;
function letGo(sub: string): void {
  const waiting = held.get(sub) ?? [];
  held.delete(sub);
  for (const go of waiting) go();
}
/** The server of each subject's latest session. */
const serverOf = new Map<string, McpServer>();

beforeAll(async () => {
  world = await startOAuthWorld({
    perUser: (server, sub) => {
      serverOf.set(sub, server);
      server.registerTool(
        'hold',
        { description: 'Answers once the test lets it go.' },
        async () => {
          await new Promise<void>((resolve) => held.set(sub, [...(held.get(sub) ?? []), resolve]));
          return { content: [{ type: 'text', text: `held ${sub}` }] };
        },
      );
      server.registerResource(
        'notes',
        `note://${sub}`,
        { mimeType: 'text/plain' },
        async (uri: URL) => ({ contents: [{ uri: uri.href, text: `notes of ${sub}` }] }),
      );
    },
  });
  perUser = world.mcpServer.perUser!;
});

afterAll(async () => {
  for (const sub of [...held.keys()]) letGo(sub);
  await world?.close();
});

const keyOf = (principal?: string) => oauthNamespace('w', world.mcpUrl, osUser(), principal);

/** Stores a token the authorization server would issue to `sub`, under `principal`'s key. */
async function seed(store: TokenStore, principal: string | undefined, sub: string) {
  const token = await world.mintAccessToken({ sub });
  await store.set(keyOf(principal), { tokens: { access_token: token, token_type: 'Bearer' } });
}

/**
 * A model whose runs each call the tools their input names (`hold whoami` calls both, in one
 * turn), then answer once the results are in.
 */
function toolsOfInput() {
  const turn = (request: ModelRequest) => {
    if (request.messages.at(-1)?.role === 'tool') return { text: 'done' };
    const first = request.messages.find((m) => m.role === 'user')?.content[0];
    const text = first && 'text' in first ? first.text : '';
    return {
      toolCalls: text
        .split(' ')
        .filter(Boolean)
        .map((word) => {
          const [name, argument] = word.split('=');
          if (name === 'list') return { name: 'mcp_resources_list', arguments: {} };
          if (name === 'read')
            return { name: 'mcp_resources_read', arguments: { server: 'w', uri: argument } };
          return { name: `mcp__w__${name}`, arguments: {} };
        }),
    };
  };
  return scriptedModel(Array.from({ length: 1000 }, () => turn));
}

function agentFor(
  store: TokenStore,
  options: {
    readonly mcp?: Record<string, unknown>;
    readonly observer?: (event: AuthorizationEvent) => void;
  } = {},
): Agent {
  return createAgent({
    model: toolsOfInput(),
    policy: {
      allow: ['mcp_connect:w', 'mcp__w__*', 'mcp_resources_*'],
      ...(options.observer ? { observer: options.observer } : {}),
    },
    mcpServers: { w: { type: 'http', url: world.mcpUrl } },
    mcp: {
      strictConfig: true,
      protocol: { mode: 'legacy' },
      oauth: {
        w: {
          serverUrl: world.mcpUrl,
          allowedOrigins: [world.issuer],
          redirectUri: REDIRECT_URI,
          store,
          perPrincipal: true,
        },
      },
      ...options.mcp,
    },
  });
}

/**
 * The text each completed tool call of a run answered (errors with their code), in the order the
 * model made the calls: calls of one turn run side by side and may end in any order.
 */
function answers(events: readonly AgentEvent[]): string[] {
  const order = new Map<string, number>();
  for (const e of ofType(events, 'model.completed'))
    for (const call of e.toolCalls) order.set(call.callId, order.size);
  return ofType(events, 'tool.completed')
    .sort((a, b) => order.get(a.callId)! - order.get(b.callId)!)
    .map((e) => (e.isError ? `error: ${e.errorCode} ${e.content}` : e.content));
}

/** What `whoami` answered: the token's subject. */
const subjectOf = (content: string) => (JSON.parse(content) as { sub: string }).sub;

it('a full pool with no idle connection: the caller waits, is woken when one frees, and an abort ends its wait (ABORTED), leaving nothing behind', async () => {
  const store = memoryTokenStore();
  for (const p of ['alice', 'bob', 'carol']) await seed(store, p, p);
  const connects: string[] = [];
  const agent = agentFor(store, {
    mcp: { maxPrincipalConnections: 1 },
    observer: (event) => {
      if (event.capability === 'mcp_connect:w') connects.push(event.principal ?? '');
    },
  });
  try {
    perUser.resetMax();
    const leftOpen = perUser.stats().liveSessions;
    const sessions = () => perUser.stats().sessionsBy;
    const before = sessions();

    // alice's call holds the only connection
    const alice = collect(agent.run({ input: 'hold', principal: 'alice' }));
    await expect.poll(() => holding('alice')).toBe(1);

    // bob's run needs one too: authorized, then waiting for room (nothing opened for him)
    const bob = collect(agent.run({ input: 'whoami', principal: 'bob' }));
    await expect.poll(() => connects.includes('bob')).toBe(true);
    expect(sessions()['bob']).toBe(before['bob']);

    // alice's call ends: her idle connection makes room, and bob is woken
    letGo('alice');
    const [aliceDone, bobDone] = await Promise.all([alice, bob]);
    expect(aliceDone.error).toBeUndefined();
    expect(answers(aliceDone.events)).toEqual(['held alice']);
    expect(bobDone.error).toBeUndefined();
    expect(answers(bobDone.events).map(subjectOf)).toEqual(['bob']);
    expect(sessions()['bob']).toBe((before['bob'] ?? 0) + 1);

    // again: alice holds the only connection, carol waits and is aborted while waiting
    const alice2 = collect(agent.run({ input: 'hold', principal: 'alice' }));
    await expect.poll(() => holding('alice')).toBe(1);
    const abort = new AbortController();
    const carol = collect(agent.run({ input: 'whoami', principal: 'carol', signal: abort.signal }));
    await expect.poll(() => connects.includes('carol')).toBe(true);
    abort.abort();
    const carolDone = await carol;
    expect(carolDone.error?.code).toBe('ABORTED');
    expect(answers(carolDone.events)).toEqual([]);
    expect(sessions()['carol']).toBe(before['carol']);

    // nothing leaked: alice's connection still serves her, and once it is idle carol's next
    // run gets the room her aborted wait did not keep
    letGo('alice');
    expect(answers((await alice2).events)).toEqual(['held alice']);
    const carolAgain = await collect(agent.run({ input: 'whoami', principal: 'carol' }));
    expect(carolAgain.error).toBeUndefined();
    expect(answers(carolAgain.events).map(subjectOf)).toEqual(['carol']);
    expect(sessions()['carol']).toBe((before['carol'] ?? 0) + 1);

    // the server never saw two of this agent's clients at once
    expect(perUser.stats().maxLiveSessions - leftOpen).toBeLessThanOrEqual(1);
    expect(perUser.stats().calls.filter((c) => c.tokenSub !== c.sessionSub)).toEqual([]);
  } finally {
    await agent.close();
  }
});

it("a server's request on one principal's connection reaches that principal's run only", async () => {
  const store = memoryTokenStore();
  for (const p of ['alice', 'bob']) await seed(store, p, p);
  const origins: McpRequestOrigin[] = [];
  const agent = agentFor(store, {
    mcp: {
      handlers: {
        sampling: async (_request: unknown, origin: McpRequestOrigin) => {
          origins.push(origin);
          return {
            role: 'assistant',
            content: { type: 'text', text: `answered for ${origin.principal ?? 'nobody'}` },
            model: 'test',
          };
        },
      },
    },
  });
  const ask = (sub: string) =>
    serverOf.get(sub)!.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: `from ${sub}'s session` } }],
      maxTokens: 5,
    });
  try {
    // alice's connection is open and idle; bob's call is in flight on his own
    const alice = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(answers(alice.events).map(subjectOf)).toEqual(['alice']);
    const bob = collect(agent.run({ input: 'hold', principal: 'bob' }));
    await expect.poll(() => holding('bob')).toBe(1);

    // the server asks on alice's connection: no call of alice's is in flight, so it belongs
    // to no run (bob's call is on another connection), and it names alice
    const fromAlice = await ask('alice');
    // the server asks on bob's connection during his call: his run's
    const fromBob = await ask('bob');
    letGo('bob');
    const bobDone = await bob;
    expect(bobDone.error).toBeUndefined();
    const bobSession = bobDone.events[0]!.sessionId;

    expect(origins).toHaveLength(2);
    // alice's request was not taken for bob's: no run, no call
    expect(origins[0]!.sessionId).toBeUndefined();
    expect(origins[0]!.runId).toBeUndefined();
    expect(origins[1]).toMatchObject({ server: 'w', sessionId: bobSession });
    // bob's run shows his own request only
    const sampled = ofType(bobDone.events, 'sampling.requested');
    expect(sampled).toHaveLength(1);
    expect(sampled[0]!.callId).toBe(origins[1]!.callId);
    // each request names the principal whose connection it came on
    expect(origins.map((o) => o.principal)).toEqual(['alice', 'bob']);
    expect(fromAlice.content).toMatchObject({ text: 'answered for alice' });
    expect(fromBob.content).toMatchObject({ text: 'answered for bob' });
  } finally {
    letGo('bob');
    await agent.close();
  }
});

it("the resource tools list and read a principal's own connection, never the shared one", async () => {
  const store = memoryTokenStore();
  await seed(store, undefined, 'user-1');
  await seed(store, 'bob', 'bob');
  const agent = agentFor(store, { mcp: { exposeResources: true } });
  try {
    // the local user's run opens the shared connection (signed in as user-1)
    const local = await collect(agent.run({ input: 'list read=note://user-1' }));
    expect(local.error).toBeUndefined();
    expect(answers(local.events)).toEqual([
      JSON.stringify([
        { server: 'w', uri: 'note://user-1', name: 'notes', mimeType: 'text/plain' },
      ]),
      'notes of user-1',
    ]);
    expect(agent.mcp.list()[0]?.status).toBe('connected');

    // bob's run sees and reads his own notes, on his own connection
    const before = perUser.stats().sessionsBy['bob'] ?? 0;
    const bob = await collect(
      agent.run({ input: 'list read=note://bob read=note://user-1', principal: 'bob' }),
    );
    expect(bob.error).toBeUndefined();
    const [listed, own, other] = answers(bob.events);
    expect(JSON.parse(listed!)).toEqual([
      { server: 'w', uri: 'note://bob', name: 'notes', mimeType: 'text/plain' },
    ]);
    expect(own).toBe('notes of bob');
    // user-1's resource is not on bob's connection: the server refuses it there
    expect(other).toMatch(/^error: /);
    expect(other).not.toContain('notes of user-1');
    expect(perUser.stats().sessionsBy['bob']).toBe(before + 1);
  } finally {
    await agent.close();
  }
});

it("a principal's connection offers the Tasks extension as the shared one does: its call becomes a task, followed to its end (more in test/mcp/tasks/task-principals.test.ts)", async () => {
  const fixture = await startTasksFixture('http');
  const agent = createAgent({
    model: scriptedModel(
      Array.from(
        { length: 10 },
        () => (request: ModelRequest) =>
          request.messages.at(-1)?.role === 'tool'
            ? { text: 'done' }
            : { toolCalls: [{ name: 'mcp__t__finish', arguments: { ms: 10, text: 'finished' } }] },
      ),
    ),
    policy: { allow: ['mcp_connect:t', 'mcp__t__*'] },
    mcpServers: {
      t: {
        ...(fixture.config as { type: 'http'; url: string }),
        perPrincipal: true,
        auth: {
          type: 'provider',
          provider: (principal: string | undefined) => ({
            token: async () => `token-of-${principal ?? 'the-local-user'}`,
          }),
        },
      },
    },
    mcp: { strictConfig: true, tasks: { minPollIntervalMs: 25, maxPollIntervalMs: 100 } },
  });
  const created = () => fixture.log().filter((r) => r.method === 'task-created');
  try {
    // the shared connection offers tasks: the fixture makes one, polled to its end
    const local = await collect(agent.run({ input: 'x' }));
    expect(answers(local.events)).toEqual(['finished']);
    expect(created()).toHaveLength(1);

    // alice's own connection too: the task is made for her, and polled there to its end
    const alice = await collect(agent.run({ input: 'x', principal: 'alice' }));
    expect(alice.error).toBeUndefined();
    expect(created()).toHaveLength(2);
    expect(answers(alice.events)).toEqual(['finished']);
  } finally {
    await agent.close();
    await fixture.stop();
  }
});

it("disconnectAll, update and unregister close the principals' connections; the next run opens a new one", async () => {
  const store = memoryTokenStore();
  await seed(store, undefined, 'user-1');
  await seed(store, 'alice', 'alice');
  const agent = agentFor(store);
  const config = { type: 'http', url: world.mcpUrl } as const;
  const aliceSessions = () => perUser.stats().sessionsBy['alice'] ?? 0;
  const whoAmI = async () => {
    const run = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    return answers(run.events).map(subjectOf);
  };
  try {
    await expect.poll(() => perUser.stats().openStreams).toBe(0);
    const before = aliceSessions();
    expect(await whoAmI()).toEqual(['alice']);
    expect(await whoAmI()).toEqual(['alice']);
    // one connection for both runs, open and idle
    expect(aliceSessions()).toBe(before + 1);
    await expect.poll(() => perUser.stats().openStreams).toBe(1);

    await agent.mcp.disconnectAll();
    await expect.poll(() => perUser.stats().openStreams).toBe(0);
    expect(await whoAmI()).toEqual(['alice']);
    expect(aliceSessions()).toBe(before + 2);

    // update connects the local user's shared connection anew, and closes alice's
    await agent.mcp.update('w', config);
    await expect.poll(() => perUser.stats().openStreams).toBe(1);
    expect(await whoAmI()).toEqual(['alice']);
    expect(aliceSessions()).toBe(before + 3);
    await expect.poll(() => perUser.stats().openStreams).toBe(2);

    // unregistered: both close, and alice's run has no tool of w
    await agent.mcp.unregister('w');
    await expect.poll(() => perUser.stats().openStreams).toBe(0);
    const gone = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(answers(gone.events)).toEqual([expect.stringMatching(/^error: TOOL_NOT_FOUND /)]);
    expect(aliceSessions()).toBe(before + 3);
  } finally {
    await agent.close();
  }
});

it("a session the server forgot: the principal's call is sent once more, on a fresh connection of the same principal", async () => {
  const store = memoryTokenStore();
  await seed(store, 'alice', 'alice');
  const agent = agentFor(store);
  try {
    const before = perUser.stats().sessionsBy['alice'] ?? 0;
    const first = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(answers(first.events).map(subjectOf)).toEqual(['alice']);
    perUser.clearCalls();
    // the server restarts (as far as sessions go): alice's connection names a session it
    // no longer knows, which refuses the call before it runs
    perUser.forgetSessions();
    const again = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(again.error).toBeUndefined();
    expect(answers(again.events).map(subjectOf)).toEqual(['alice']);
    // ran once, on a new session of alice's
    expect(perUser.stats().calls).toEqual([
      { tokenSub: 'alice', sessionSub: 'alice', tool: 'whoami' },
    ]);
    expect(perUser.stats().sessionsBy['alice']).toBe(before + 2);
  } finally {
    await agent.close();
  }
});

// last in this file: it moves the world's clock forward
it("a token the server refuses mid-connection (401) closes that principal's connection: the call fails for want of a sign-in, and the next run parks on the sign-in", async () => {
  const store = memoryTokenStore();
  await seed(store, 'alice', 'alice');
  const agent = agentFor(store);
  try {
    await expect.poll(() => perUser.stats().openStreams).toBe(0);
    const first = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(answers(first.events).map(subjectOf)).toEqual(['alice']);
    await expect.poll(() => perUser.stats().openStreams).toBe(1);

    // alice's token (no refresh token) is past its expiry at the server now
    world.advanceClock(3600);
    const refused = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(refused.error).toBeUndefined();
    expect(answers(refused.events)).toEqual([
      expect.stringMatching(
        /no working sign-in for this principal.*authenticate\('w', \{ principal \}\)/,
      ),
    ]);
    // her connection was closed, not kept for the next call
    await expect.poll(() => perUser.stats().openStreams).toBe(0);

    const next = await collect(agent.run({ input: 'whoami', principal: 'alice' }));
    expect(ofType(next.events, 'session.parked')[0]?.waits).toMatchObject([
      { kind: 'auth', server: 'w', principal: 'alice' },
    ]);
  } finally {
    await agent.close();
  }
});
