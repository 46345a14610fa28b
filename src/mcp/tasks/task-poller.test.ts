import { beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '../../errors/index.js';
import { loadClient } from '../failures/client-errors.js';
import { TaskStillRunning } from '../contracts/task-types.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { clampPollInterval, pollTask } from './index.js';
import type { DetailedTask, TaskChannel, TaskStatusReport } from './index.js';

describe('clampPollInterval', () => {
  it.each([
    [0, 250],
    [86_400_000, 5_000],
    [1_000, 1_000],
    [undefined, 250],
    [Number.NaN, 250],
    [Number.POSITIVE_INFINITY, 250],
  ])('a server asking for %s ms is polled every %s ms within [250, 5000]', (asked, waits) => {
    expect(clampPollInterval(asked, 250, 5_000)).toBe(waits);
  });
});

// The poller against a scripted channel: each `tasks/get` answers the next step (a task
// state, or an error to throw), on a clock the channel moves, polled every millisecond.

type Step = Partial<DetailedTask> | Error;

const SEED: CapturedTask = {
  requestId: 1,
  taskId: 'task-1',
  status: 'working',
  // an hour behind this process's clock: the ttl is not counted from here
  createdAt: new Date(Date.now() - 3_600_000).toISOString(),
  ttlMs: 1_000,
  pollIntervalMs: 1,
};

/** A channel that answers `steps` in order (the last one again once they run out). */
function scripted(steps: readonly Step[], tick = 0) {
  const clock = { now: 0 };
  const sent = { gets: 0, updates: 0, cancels: [] as string[] };
  const channel: TaskChannel = {
    get: async (taskId) => {
      const step = steps[Math.min(sent.gets, steps.length - 1)]!;
      sent.gets++;
      clock.now += tick;
      if (step instanceof Error) throw step;
      return {
        taskId,
        status: 'working',
        createdAt: SEED.createdAt,
        lastUpdatedAt: SEED.createdAt,
        ttlMs: SEED.ttlMs,
        pollIntervalMs: 1,
        ...step,
      } as DetailedTask;
    },
    update: async () => {
      sent.updates++;
      throw updateRefusal;
    },
    cancel: (taskId) => void sent.cancels.push(taskId),
  };
  return { channel, clock, sent };
}

let updateRefusal: Error;
let unknownTask: Error;

beforeAll(async () => {
  const { ProtocolError } = await loadClient();
  updateRefusal = new ProtocolError(-32602, 'these answers are not accepted');
  unknownTask = new ProtocolError(-32602, 'Unknown task: task-1');
});

const options = (clock: { now: number }, more: Partial<Parameters<typeof pollTask>[2]> = {}) => ({
  server: 's',
  toolName: 'work',
  minPollIntervalMs: 1,
  maxPollIntervalMs: 1,
  signal: new AbortController().signal,
  now: () => clock.now,
  ...more,
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

const done = { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } } as const;

describe('pollTask', () => {
  it("counts the ttl from when the task answer was read, on this process's clock: one last poll past it, then task-expired and one tasks/cancel", async () => {
    const { channel, clock, sent } = scripted([{}], 600);
    const err = await rejection(pollTask(channel, SEED, options(clock)));
    expect(err).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: { reason: 'task-expired', taskId: 'task-1' },
    });
    expect(sent.gets).toBe(2);
    expect(sent.cancels).toEqual(['task-1']);
  });

  it('-32602 to tasks/get is an unknown task (nothing to cancel); to tasks/update a refused answer (cancelled once)', async () => {
    const gone = scripted([unknownTask]);
    expect(await rejection(pollTask(gone.channel, SEED, options(gone.clock)))).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: { reason: 'task-not-found', taskId: 'task-1' },
    });
    expect(gone.sent.cancels).toEqual([]);

    const asking = scripted([
      { status: 'input_required', inputRequests: { q: { method: 'elicitation/create' } } },
    ]);
    const refused = await rejection(
      pollTask(
        asking.channel,
        SEED,
        options(asking.clock, { answerInput: async () => ({ q: 1 }) }),
      ),
    );
    expect(refused).toBe(updateRefusal);
    expect(asking.sent.cancels).toEqual(['task-1']);
  });

  it('reports the seed and each change once; a report that throws still cancels the task', async () => {
    const { channel, clock } = scripted([{}, {}, { statusMessage: 'half' }, done]);
    const reports: TaskStatusReport[] = [];
    await pollTask(channel, SEED, options(clock, { onStatus: (r) => void reports.push(r) }));
    expect(reports.map((r) => [r.status, r.statusMessage])).toEqual([
      ['working', undefined],
      ['working', 'half'],
      ['completed', undefined],
    ]);

    // a task resumed from its wait: its stored status was reported by the run that parked it
    const resumed = scripted([{}, { statusMessage: 'half' }, done]);
    const again: TaskStatusReport[] = [];
    await pollTask(
      resumed.channel,
      SEED,
      options(resumed.clock, { seedReported: true, onStatus: (r) => void again.push(r) }),
    );
    expect(again.map((r) => [r.status, r.statusMessage])).toEqual([
      ['working', 'half'],
      ['completed', undefined],
    ]);

    const throwing = scripted([{}]);
    const boom = new Error('observer failed');
    const err = await rejection(
      pollTask(
        throwing.channel,
        SEED,
        options(throwing.clock, {
          onStatus: () => {
            throw boom;
          },
        }),
      ),
    );
    expect(err).toBe(boom);
    expect(throwing.sent.cancels).toEqual(['task-1']);
  });

  it('retries a transient tasks/get failure (within MAX_POLL_FAILURES in a row); a third one in a row ends the poll and cancels once', async () => {
    const lost = new McpError('MCP_OPERATION_FAILED', 'not sent', {
      details: { reason: 'not-sent' },
    });
    const transient = (err: unknown) => err === lost;
    const recovers = scripted([lost, lost, done]);
    const result = await pollTask(recovers.channel, SEED, options(recovers.clock, { transient }));
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(recovers.sent.cancels).toEqual([]);

    const gives = scripted([lost, lost, lost, done]);
    expect(
      await rejection(pollTask(gives.channel, SEED, options(gives.clock, { transient }))),
    ).toBe(lost);
    expect(gives.sent.gets).toBe(3);
    expect(gives.sent.cancels).toEqual(['task-1']);

    // not transient: the first failure ends it
    const once = scripted([lost, done]);
    expect(await rejection(pollTask(once.channel, SEED, options(once.clock)))).toBe(lost);
    expect(once.sent.gets).toBe(1);
  });

  it("the call's total deadline: one last poll at it, then timeout and one tasks/cancel", async () => {
    const { channel, clock, sent } = scripted([{}], 100);
    const err = await rejection(
      pollTask(
        channel,
        { ...SEED, ttlMs: null },
        options(clock, { total: { at: 250, limitMs: 250 } }),
      ),
    );
    expect(err).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: { reason: 'timeout', limit: 'maxTotalTimeoutMs', taskId: 'task-1' },
    });
    expect(sent.gets).toBe(3);
    expect(sent.cancels).toEqual(['task-1']);
  });

  it('an abort cancels once, unless cancelOnAbort says no for its reason', async () => {
    for (const [rule, cancels] of [
      [undefined, ['task-1']],
      [(reason: unknown) => reason !== 'closing', []],
    ] as const) {
      const ac = new AbortController();
      const { channel, clock, sent } = scripted([{}]);
      const err = await rejection(
        pollTask(
          channel,
          SEED,
          options(clock, {
            signal: ac.signal,
            onStatus: () => ac.abort('closing'),
            ...(rule ? { cancelOnAbort: rule } : {}),
          }),
        ),
      );
      expect(err).toMatchObject({ code: 'ABORTED' });
      expect(sent.cancels).toEqual(cancels);
    }
  });

  it('a resumed task that parks (an agent closed) before a fresh tasks/get answers keeps when it was last polled', async () => {
    const ac = new AbortController();
    const { channel, clock, sent } = scripted([{}]);
    // the agent closes while the resumed task's first poll is out: it never answers
    const closing: TaskChannel = {
      ...channel,
      get: async () => {
        ac.abort('agent-closed');
        throw new Error('aborted before tasks/get answered');
      },
    };
    const err = await rejection(
      pollTask(
        closing,
        SEED,
        options(clock, {
          signal: ac.signal,
          pollFirst: true,
          polledAt: 1_234,
          seedReported: true,
          park: { onAbort: (reason: unknown) => reason === 'agent-closed' },
        }),
      ),
    );
    expect(err).toBeInstanceOf(TaskStillRunning);
    expect((err as TaskStillRunning).polledAt).toBe(1_234);
    expect(sent.cancels).toEqual([]);
  });
});
