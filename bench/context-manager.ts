import type { ContextCompactedEvent, ModelMessage } from '../src/index.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';
import { muster } from './muster.js';

const { ContextManager } = muster;

/** How many times each case is timed: batches of `batchSize` requests, `samples` batches. */
export interface ContextBenchOptions {
  readonly warmupBatches: number;
  readonly batchSize: number;
  readonly samples: number;
}

/** One measured case: the manager's cost per model request, in microseconds. */
export interface ContextBenchCase {
  readonly label: string;
  readonly perRequestUs: Summary;
  /** Messages sent per request (of the transcript's). */
  readonly sentMessages: number;
}

/** The measured cases and the transcript they shaped. */
export interface ContextBenchResult {
  readonly messages: number;
  readonly transcriptBytes: number;
  readonly cases: readonly ContextBenchCase[];
}

const MESSAGES = 100;

/**
 * A 100-message transcript as a long session leaves it: 20 turns of a question, a model turn
 * with two tool calls, their results (~1.5 KB each) and an answer.
 */
function transcript(): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (let t = 0; out.length < MESSAGES; t++) {
    out.push({
      role: 'user',
      content: [{ type: 'text', text: `question ${t}: ${'why '.repeat(20)}` }],
    });
    out.push({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking it up.' },
        { type: 'tool-call', callId: `c${t}a`, name: 'search', arguments: { q: `topic ${t}` } },
        {
          type: 'tool-call',
          callId: `c${t}b`,
          name: 'fetch',
          arguments: { url: `https://example.com/${t}` },
        },
      ],
    });
    for (const id of [`c${t}a`, `c${t}b`])
      out.push({
        role: 'tool',
        callId: id,
        toolName: 'search',
        content: `result ${id} ${'data '.repeat(300)}`,
        isError: false,
      });
    out.push({
      role: 'assistant',
      content: [{ type: 'text', text: `answer ${t}: ${'because '.repeat(30)}` }],
    });
  }
  return out.slice(0, MESSAGES);
}

/** A fresh copy of every message: what the first request of a run sees after loading the session. */
const copy = (messages: readonly ModelMessage[]): ModelMessage[] =>
  messages.map((m) => structuredClone(m));

/**
 * Measures `ContextManager.prepare` on a 100-message transcript: within the limits (the common
 * case), over the limits with `truncate` and with `summarize` (the run's summary reused; the
 * host summarizer is not timed), each with the sizes remembered (every request of a run after
 * its first) and, for truncate, with fresh message objects (a run's first request).
 */
export async function measureContextManager(
  options: ContextBenchOptions,
): Promise<ContextBenchResult> {
  const base = transcript();
  const signal = new AbortController().signal;
  let events = 0;
  const request = {
    sessionId: 's',
    runId: 'r',
    system: 'Be brief.',
    signal,
    emit: (_: ContextCompactedEvent) => void events++,
  };
  const roomy = new ContextManager();
  const full = roomy.measure(base, request.system);
  const tight = { maxTokens: Math.floor(full.tokens / 3) };
  const cases: {
    label: string;
    manager: InstanceType<typeof ContextManager>;
    input: () => readonly ModelMessage[];
  }[] = [
    { label: 'within the limits (sent as it is)', manager: roomy, input: () => base },
    {
      label: 'within the limits, first request of a run',
      manager: roomy,
      input: () => copy(base),
    },
    {
      label: 'truncate to 1/3 of the tokens',
      manager: new ContextManager(tight),
      input: () => base,
    },
    {
      label: 'truncate, first request of a run',
      manager: new ContextManager(tight),
      input: () => copy(base),
    },
    {
      label: 'summarize to 1/3 (summary reused)',
      manager: new ContextManager({
        ...tight,
        summarize: async () => 'The user asked about many topics.',
      }),
      input: () => base,
    },
  ];
  const results: ContextBenchCase[] = [];
  for (const c of cases) {
    let sent = 0;
    const batch = async (): Promise<number> => {
      const inputs = Array.from({ length: options.batchSize }, c.input);
      const start = performance.now();
      for (const input of inputs) sent = (await c.manager.prepare(input, request)).length;
      return ((performance.now() - start) * 1000) / options.batchSize;
    };
    for (let i = 0; i < options.warmupBatches; i++) await batch();
    const samples: number[] = [];
    for (let i = 0; i < options.samples; i++) samples.push(await batch());
    results.push({ label: c.label, perRequestUs: summarize(samples), sentMessages: sent });
  }
  if (events === 0) throw new Error('bench: no request was compacted');
  return { messages: base.length, transcriptBytes: full.bytes, cases: results };
}
