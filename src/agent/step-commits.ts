import type { ModelMessage, ToolResultMessage, Usage } from '../model/index.js';
import type { ToolCallOutcome } from '../tools/index.js';
import type { SessionPatch, SessionStore } from '../session/index.js';
import { deepFreeze } from '../util/index.js';
import type { CallCommits } from './tool-scheduler.js';

/**
 * A patch that changes nothing, with every field of `SessionPatch` in one order: the run
 * builds each of its patches from it (`{ ...UNCHANGED, status: 'parked' }`), so every commit
 * reaches the store in one shape and the store's reads of it stay monomorphic (with a dozen
 * shapes they were a tenth of a one-turn run). A field left `undefined` changes nothing.
 */
export const UNCHANGED: { readonly [K in keyof Required<SessionPatch>]: undefined } = Object.freeze(
  {
    status: undefined,
    iteration: undefined,
    finalContent: undefined,
    finalOutput: undefined,
    addUsage: undefined,
    appendMessages: undefined,
    appendArchiveRefs: undefined,
    appendStartedCalls: undefined,
    error: undefined,
    appendEvents: undefined,
    budget: undefined,
  },
);

/** What committing needs of a run: its session and its (guarded, leased) store. */
export interface CommitTarget {
  readonly sessionId: string;
  readonly store: SessionStore;
  /** Stores the wait of a call that parked (SPEC 15.1), in its place among the results. */
  readonly park?: (outcome: ToolCallOutcome) => Promise<unknown>;
}
import { withoutMedia } from './stored-form.js';

/**
 * Appends to the live transcript and commits the same messages, without media, to the store;
 * with `appendStartedCalls`, the starts of calls about to run in the same write.
 */
export async function commitMessages(
  ctx: CommitTarget,
  transcript: ModelMessage[],
  messages: readonly ModelMessage[],
  patch: { iteration?: number; addUsage?: Usage; appendStartedCalls?: readonly string[] },
): Promise<void> {
  await ctx.store.update(ctx.sessionId, {
    ...UNCHANGED,
    iteration: patch.iteration,
    addUsage: patch.addUsage,
    appendMessages: messages.map(withoutMedia),
    appendStartedCalls: patch.appendStartedCalls,
  });
  // only after the store took them: a failed write leaves the live transcript as committed
  transcript.push(...messages);
}

/**
 * The transcript message of a call's outcome, frozen. Without media it is deep-frozen, so the
 * store can keep it without a copy; media (the tool's own objects) are left as they are, and
 * never stored.
 */
export function toolMessage({
  callId,
  toolName,
  result,
  decidedBy,
}: ToolCallOutcome): ToolResultMessage {
  const message: ToolResultMessage = {
    role: 'tool',
    callId,
    toolName,
    content: result.content,
    isError: result.isError === true,
    ...(decidedBy ? { decidedBy } : {}),
  };
  return result.media && result.media.length > 0
    ? Object.freeze({ ...message, media: result.media })
    : deepFreeze(message);
}

/**
 * The commits of one turn's calls: each start as it happens, and each result as soon as the
 * results before it in response order are committed, one write at a time.
 */
export function stepCommits(ctx: CommitTarget, transcript: ModelMessage[]): CallCommits {
  const ready = new Map<
    number,
    { outcome: ToolCallOutcome; done: () => void; fail: (e: unknown) => void }
  >();
  let next = 0;
  let chain: Promise<void> = Promise.resolve();
  let broken: { error: unknown } | undefined;
  const flush = () => {
    while (ready.has(next)) {
      const entry = ready.get(next)!;
      ready.delete(next);
      next++;
      chain = chain
        .then(async () => {
          if (broken) throw broken.error;
          // a parked call has no result yet: its wait takes its place
          if (entry.outcome.parked) await ctx.park!(entry.outcome);
          else await commitMessages(ctx, transcript, [toolMessage(entry.outcome)], {});
        })
        .then(entry.done, (error: unknown) => {
          broken ??= { error };
          entry.fail(error);
        });
    }
  };
  return {
    started: (call) =>
      ctx.store.update(ctx.sessionId, { ...UNCHANGED, appendStartedCalls: [call.callId] }),
    finished: (index, outcome) =>
      new Promise<void>((done, fail) => {
        ready.set(index, { outcome, done, fail });
        flush();
      }),
  };
}

/**
 * `commits` whose start of a call already recorded among the session's call starts is not
 * written again (`recorded`: the starts that rode the commit of the turn's own message, or a
 * resumed run's parked calls that run again): only membership counts, and a task polled on
 * each resume would otherwise add an entry per poll.
 */
export function skipRecorded(
  commits: CallCommits,
  recorded: ReadonlySet<string> | undefined,
): CallCommits {
  if (!recorded || recorded.size === 0) return commits;
  return {
    started: (call) => (recorded.has(call.callId) ? Promise.resolve() : commits.started(call)),
    finished: (index, outcome) => commits.finished(index, outcome),
  };
}
