import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemorySessionStore, createAgent, scriptedModel, tool } from '../../src/index.js';
import type {
  AgentEvent,
  AuthorizationEvent,
  MusterError,
  SessionStore,
  ToolResultMessage,
} from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

/** A tool that counts how often it ran, by call. */
function counted(name: string, runs: string[], description = `Does ${name}.`) {
  return tool({
    name,
    description,
    input: z.object({ n: z.number() }),
    execute: ({ n }) => {
      runs.push(`${name}:${n}`);
      return `${name} done ${n}`;
    },
  });
}

async function failure(p: Promise<unknown>): Promise<MusterError> {
  try {
    await p;
  } catch (err) {
    return err as MusterError;
  }
  throw new Error('did not fail');
}

function toolResults(messages: readonly { role: string }[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === 'tool');
}

describe('parking an approval (SPEC 15.1)', () => {
  it('parks, is decided, and resumes: the tool runs once with the approved arguments', async () => {
    const store = new MemorySessionStore();
    const runs: string[] = [];
    const seen: AuthorizationEvent[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'pay', arguments: { n: 5 }, id: 'call_pay' }] },
      { text: 'Paid.' },
    ]);
    const agent = createAgent({
      model,
      tools: [counted('pay', runs)],
      sessionStore: store,
      policy: { park: true, observer: (e) => seen.push(e) },
    });
    const parked = await agent.send('Pay 5.', { sessionId: 's1' });
    expect(parked.status).toBe('parked');
    expect(parked.waits).toHaveLength(1);
    const wait = parked.waits![0]!;
    expect(wait).toMatchObject({
      sessionId: 's1',
      kind: 'approval',
      callId: 'call_pay',
      toolName: 'pay',
      arguments: { n: 5 },
      status: 'pending',
    });
    expect(wait.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(runs).toEqual([]);
    expect((await store.get('s1'))?.status).toBe('parked');
    expect(ofType(parked.events, 'wait.created')).toHaveLength(1);
    expect((await agent.sessions.waits({ sessionId: 's1' })).waits.map((w) => w.id)).toEqual([
      wait.id,
    ]);

    const decided = await agent.decide('s1', wait.id, { decision: 'allow', reason: 'ok by ana' });
    expect(decided).toMatchObject({ status: 'decided', decision: { decision: 'allow' } });
    const resumed = await collect(agent.resume('s1'));
    expect(resumed.error).toBeUndefined();
    expect(runs).toEqual(['pay:5']);
    expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
      { waitId: wait.id, applied: true, expired: false },
    ]);
    expect(ofType(resumed.events, 'session.completed')[0]?.content).toBe('Paid.');
    const session = await store.get('s1');
    expect(session?.status).toBe('completed');
    expect(toolResults(session!.messages)).toMatchObject([
      {
        callId: 'call_pay',
        content: 'pay done 5',
        decidedBy: { waitId: wait.id, decision: 'allow', reason: 'ok by ana' },
      },
    ]);
    // the decision reached the policy observer when it was taken and when it applied
    expect(seen.filter((e) => e.callId === 'call_pay').map((e) => e.decision)).toEqual([
      'park',
      'allow',
      'allow',
    ]);
    // a used wait is gone; a second decision is refused
    expect((await agent.sessions.waits({ sessionId: 's1' })).waits).toEqual([]);
    await agent.close();
  });
});
