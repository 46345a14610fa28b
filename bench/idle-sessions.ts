import type { Agent, SessionStore } from '../src/index.js';
import { BenchModel } from './bench-model.js';
import type { ForcedGc } from './gc.js';
import { muster } from './muster.js';

const { createAgent } = muster;

/** Heap retained by idle, completed sessions in one `MemorySessionStore`. */
export interface IdleSessionsResult {
  readonly sessions: number;
  readonly heapUsedBefore: number;
  readonly heapUsedAfter: number;
  /** `heapUsed` after minus before, in bytes. */
  readonly heapDeltaBytes: number;
  readonly bytesPerSession: number;
  readonly gcSource: ForcedGc['source'];
}

async function runOneTurn(agent: Agent, sessionId: string): Promise<void> {
  let completed = false;
  for await (const ev of agent.run({ input: `Hello from ${sessionId}.`, sessionId }))
    completed ||= ev.type === 'session.completed';
  if (!completed) throw new Error(`idle-session run ${sessionId} did not complete`);
}

/** Collects, lets finalizers run (AbortSignal.any cleans up through them), and collects again. */
async function settledHeap(gc: ForcedGc): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc.collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  gc.collect();
  return process.memoryUsage().heapUsed;
}

/**
 * Creates `count` idle sessions in one agent's default `MemorySessionStore` by running one
 * one-turn run per distinct `sessionId`, and reports the `heapUsed` they retain (with forced
 * full collections before each reading when a collector is available). A separate agent warms
 * the code first, so lazy module loads are not counted.
 */
export async function measureIdleSessions(
  count: number,
  gc: ForcedGc,
  sessionStore?: SessionStore,
): Promise<IdleSessionsResult> {
  const warm = createAgent({ model: new BenchModel(1) });
  for (let i = 0; i < 200; i++) await runOneTurn(warm, `warm-${i}`);
  await warm.close();

  const agent = createAgent({
    model: new BenchModel(1),
    ...(sessionStore ? { sessionStore } : {}),
  });
  try {
    const heapUsedBefore = await settledHeap(gc);
    for (let i = 0; i < count; i++) await runOneTurn(agent, `idle-${i}`);
    const heapUsedAfter = await settledHeap(gc);
    // pages of at most 1,000 (the store's bound)
    const listed = [];
    let cursor: string | undefined;
    do {
      const page = await agent.sessions.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
      listed.push(...page.sessions);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (listed.length !== count || listed.some((s) => s.status !== 'completed'))
      throw new Error(`expected ${count} completed sessions, found ${listed.length}`);
    const heapDeltaBytes = heapUsedAfter - heapUsedBefore;
    return {
      sessions: count,
      heapUsedBefore,
      heapUsedAfter,
      heapDeltaBytes,
      bytesPerSession: heapDeltaBytes / count,
      gcSource: gc.source,
    };
  } finally {
    await agent.close();
  }
}
