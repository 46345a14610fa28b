import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import type { AssistantMessage, ModelMessage, ToolResultMessage } from '../model/index.js';
import { ContextManager } from './index.js';
import type { ContextCompactedEvent, ContextManagerOptions } from './index.js';

// Random transcripts, limits and tokenizers; both strategies must always keep what they
// promise or refuse the request with AGENT_LIMIT_EXCEEDED when that alone is over a limit.

interface StepSpec {
  readonly text: string;
  readonly calls: readonly { readonly args: string; readonly result: string }[];
}
interface TurnSpec {
  readonly systemBefore: string | null;
  readonly user: string | null;
  readonly steps: readonly StepSpec[];
  readonly systemAfterFirstStep: string | null;
  readonly answer: string | null;
}

const text = (max: number) => fc.string({ maxLength: max, unit: 'grapheme' });
const step: fc.Arbitrary<StepSpec> = fc.record({
  text: text(120),
  calls: fc.array(fc.record({ args: text(120), result: text(900) }), { maxLength: 3 }),
});
const turn: fc.Arbitrary<TurnSpec> = fc.record({
  systemBefore: fc.option(text(200), { freq: 5 }),
  // a turn without a user message stands for a transcript that starts with the model
  user: fc.option(text(400), { freq: 12, nil: null }).map((u) => u),
  steps: fc.array(step, { maxLength: 4 }),
  systemAfterFirstStep: fc.option(text(80), { freq: 8 }),
  answer: fc.option(text(300), { freq: 2 }),
});

/** Builds the transcript; every call gets a unique id and its result right after its turn. */
function build(turns: readonly TurnSpec[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let id = 0;
  for (const t of turns) {
    if (t.systemBefore !== null) out.push({ role: 'system', content: t.systemBefore });
    if (t.user !== null) out.push({ role: 'user', content: [{ type: 'text', text: t.user }] });
    for (const [s, st] of t.steps.entries()) {
      const calls = st.calls.map((c) => ({ ...c, callId: `call_${id++}` }));
      out.push({
        role: 'assistant',
        content: [
          { type: 'text', text: st.text },
          ...calls.map((c) => ({
            type: 'tool-call' as const,
            callId: c.callId,
            name: 'echo',
            arguments: { text: c.args },
          })),
        ],
      });
      for (const c of calls)
        out.push({
          role: 'tool',
          callId: c.callId,
          toolName: 'echo',
          content: c.result,
          isError: false,
        });
      if (s === 0 && t.systemAfterFirstStep !== null)
        out.push({ role: 'system', content: t.systemAfterFirstStep });
    }
    if (t.answer !== null)
      out.push({ role: 'assistant', content: [{ type: 'text', text: t.answer }] });
  }
  return out;
}

const options: fc.Arbitrary<ContextManagerOptions> = fc.record(
  {
    maxTokens: fc.integer({ min: 1, max: 4_000 }),
    maxMessages: fc.integer({ min: 1, max: 60 }),
    maxBytes: fc.integer({ min: 1, max: 16_000 }),
    tokenizer: fc.constantFrom(
      (t: string) => t.length,
      (t: string) => t.split(/\s+/).filter(Boolean).length,
    ),
  },
  { requiredKeys: ['maxTokens', 'maxMessages'] },
);

/** Everything that must be sent: system messages, the newest user message, the last unit. */
function minimum(messages: readonly ModelMessage[]): Set<ModelMessage> {
  const keep = new Set<ModelMessage>(messages.filter((m) => m.role === 'system'));
  const newestUser = messages.findLast((m) => m.role === 'user');
  if (newestUser) keep.add(newestUser);
  const last = messages.findLast((m) => m.role !== 'system');
  if (last) {
    const owner =
      last.role === 'tool'
        ? messages.find(
            (m) =>
              m.role === 'assistant' && callIds(m).includes((last as ToolResultMessage).callId),
          )
        : last;
    for (const m of owner ? unitOf(messages, owner) : [last]) keep.add(m);
  }
  return keep;
}

function callIds(m: AssistantMessage): string[] {
  return m.content.flatMap((p) => (p.type === 'tool-call' ? [p.callId] : []));
}

function unitOf(messages: readonly ModelMessage[], m: ModelMessage): ModelMessage[] {
  if (m.role !== 'assistant') return [m];
  const ids = callIds(m);
  return [m, ...messages.filter((r) => r.role === 'tool' && ids.includes(r.callId))];
}

const signal = new AbortController().signal;
const outcomes = { unchanged: 0, compacted: 0, refused: 0 };

describe('truncate (property)', () => {
  it('never splits a call from its result, keeps system messages, the newest user message and the latest turn, and respects the limits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 8 }),
        options,
        fc.option(text(300), { nil: undefined }),
        async (turns, opts, system) => {
          const transcript = build(turns);
          if (transcript.every((m) => m.role === 'system')) return;
          const manager = new ContextManager(opts);
          const original = transcript.slice();
          const events: ContextCompactedEvent[] = [];
          const before = manager.measure(transcript, system);
          const withinBefore =
            before.tokens <= manager.limits.maxTokens &&
            before.messages <= manager.limits.maxMessages &&
            (manager.limits.maxBytes === undefined || before.bytes <= manager.limits.maxBytes);
          let sent: ModelMessage[];
          try {
            sent = await manager.prepare(transcript, {
              sessionId: 's',
              runId: 'r',
              system,
              signal,
              emit: (e) => events.push(e),
            });
          } catch (err) {
            // refused only when the part that must be sent is itself over a limit
            expect(MusterError.isInstance(err) && err.code).toBe('AGENT_LIMIT_EXCEEDED');
            const least = manager.measure(
              transcript.filter((m) => minimum(transcript).has(m)),
              system,
            );
            expect(
              least.tokens > manager.limits.maxTokens ||
                least.messages > manager.limits.maxMessages ||
                (manager.limits.maxBytes !== undefined && least.bytes > manager.limits.maxBytes),
            ).toBe(true);
            expect(events).toEqual([]);
            outcomes.refused++;
            return;
          }
          // the transcript itself is never changed
          expect(transcript).toEqual(original);
          // a subsequence of the transcript, in order, the same objects
          let at = -1;
          for (const m of sent) {
            const i = transcript.indexOf(m, at + 1);
            expect(i).toBeGreaterThan(at);
            at = i;
          }
          const kept = new Set(sent);
          // system messages, the newest user message and the latest unit are always sent
          for (const m of minimum(transcript)) expect(kept.has(m)).toBe(true);
          // a call is never sent without its result, nor a result without its call
          for (const m of sent) {
            if (m.role === 'assistant')
              for (const u of unitOf(transcript, m)) expect(kept.has(u)).toBe(true);
            if (m.role === 'tool') {
              const owner = transcript.find(
                (a) => a.role === 'assistant' && callIds(a).includes(m.callId),
              );
              expect(owner && kept.has(owner)).toBe(true);
            }
          }
          // within every limit
          const after = manager.measure(sent, system);
          expect(after.tokens).toBeLessThanOrEqual(manager.limits.maxTokens);
          expect(after.messages).toBeLessThanOrEqual(manager.limits.maxMessages);
          if (manager.limits.maxBytes !== undefined)
            expect(after.bytes).toBeLessThanOrEqual(manager.limits.maxBytes);
          // what is left out is the oldest part: the rest (but the newest user message) is a suffix
          const newestUser = transcript.findLast((m) => m.role === 'user');
          const rest = transcript.filter((m) => m.role !== 'system' && m !== newestUser);
          const firstKept = rest.findIndex((m) => kept.has(m));
          if (firstKept >= 0) for (const m of rest.slice(firstKept)) expect(kept.has(m)).toBe(true);
          // earlier turns are sent whole: the oldest message sent from before the newest user
          // message starts a turn (or the transcript)
          const newestAt = newestUser ? transcript.indexOf(newestUser) : 0;
          const older = transcript.slice(0, newestAt).filter((m) => m.role !== 'system');
          const firstOlder = older.findIndex((m) => kept.has(m));
          if (firstOlder > 0) expect(older[firstOlder]!.role).toBe('user');
          outcomes[withinBefore ? 'unchanged' : 'compacted']++;
          // compacted exactly when something was left out, with the right figures
          if (withinBefore) {
            expect(sent).toEqual(transcript);
            expect(events).toEqual([]);
          } else {
            expect(sent.length).toBeLessThan(transcript.length);
            expect(events).toHaveLength(1);
            expect(events[0]).toMatchObject({
              type: 'context.compacted',
              strategy: 'truncate',
              before,
              after,
              removedMessages: transcript.length - sent.length,
            });
          }
        },
      ),
      { numRuns: 400 },
    );
    // the generator reaches every outcome often enough for the property to mean something
    // (about a quarter of the runs each; the bounds leave room for unseeded runs' variance)
    expect(outcomes.compacted).toBeGreaterThan(40);
    expect(outcomes.unchanged).toBeGreaterThan(10);
    expect(outcomes.refused).toBeGreaterThan(10);
  });

  it('under summarize, sends one summary in place of what truncation leaves out, within the limits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 8 }),
        options,
        fc.option(text(300), { nil: undefined }),
        async (turns, opts, system) => {
          const transcript = build(turns);
          if (transcript.every((m) => m.role === 'system')) return;
          const given: (readonly ModelMessage[])[] = [];
          const manager = new ContextManager({
            ...opts,
            summarize: async (messages) => (given.push(messages), 'short summary'),
          });
          const events: ContextCompactedEvent[] = [];
          let sent: ModelMessage[];
          try {
            sent = await manager.prepare(transcript, {
              sessionId: 's',
              runId: 'r',
              system,
              signal,
              emit: (e) => events.push(e),
            });
          } catch (err) {
            expect(MusterError.isInstance(err) && err.code).toBe('AGENT_LIMIT_EXCEEDED');
            return;
          }
          const added = sent.filter((m) => !transcript.includes(m));
          const kept = new Set(sent);
          for (const m of minimum(transcript)) expect(kept.has(m)).toBe(true);
          for (const m of sent) {
            if (m.role === 'assistant' && transcript.includes(m))
              for (const u of unitOf(transcript, m)) expect(kept.has(u)).toBe(true);
          }
          const after = manager.measure(sent, system);
          expect(after.tokens).toBeLessThanOrEqual(manager.limits.maxTokens);
          expect(after.messages).toBeLessThanOrEqual(manager.limits.maxMessages);
          if (manager.limits.maxBytes !== undefined)
            expect(after.bytes).toBeLessThanOrEqual(manager.limits.maxBytes);
          if (events.length === 0) {
            expect(sent).toEqual(transcript);
            expect(given).toEqual([]);
            return;
          }
          // exactly one summary, a system message, standing where the first left-out message stood
          expect(added).toHaveLength(1);
          expect(added[0]).toMatchObject({
            role: 'system',
            content: expect.stringMatching(/short summary$/),
          });
          const removed = transcript.filter((m) => !kept.has(m));
          const at = sent.indexOf(added[0]!);
          expect(transcript.indexOf(sent[at + 1] ?? removed[0]!)).toBeGreaterThan(
            transcript.indexOf(removed[0]!),
          );
          // the summarizer saw every left-out message, and nothing that was sent
          const summarized = new Set(given.flat());
          for (const m of removed) expect(summarized.has(m)).toBe(true);
          for (const m of sent) if (transcript.includes(m)) expect(summarized.has(m)).toBe(false);
          expect(events[0]).toMatchObject({
            strategy: 'summarize',
            after,
            removedMessages: removed.length,
            summarized: true,
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
