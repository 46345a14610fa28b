import type { ModelMessage, UserContentPart, UserMessage } from '../model/index.js';
import type { SessionStore } from '../session/index.js';
import type { MusterError } from '../errors/index.js';
import type { RunRequest } from './agent-options.js';
import { withoutMedia } from './run-loop.js';
import { unansweredCallResults } from './transcript-repair.js';

/** A session opened for one run: the transcript the model sees, and how the run ends in the store. */
export interface SessionRun {
  /** True when the session existed before this run. */
  readonly continued: boolean;
  /** The conversation so far, including the new user message; the loop appends to it. */
  readonly transcript: ModelMessage[];
  /** When the session was opened, ISO 8601. */
  readonly startedAt: string;
  /** Records the final answer. */
  complete(content: string): Promise<void>;
  /** Records the failure (code and message only). */
  fail(error: MusterError): Promise<void>;
}

/**
 * Loads or creates the session, repairs calls a previous run left unanswered (they become
 * `TOOL_OUTCOME_UNKNOWN` results, never replays), and commits the new user message.
 * `store` is expected to type its failures (see `guardedStore`).
 */
export async function openSessionRun(
  store: SessionStore,
  sessionId: string,
  request: RunRequest,
): Promise<SessionRun> {
  const existing = await store.get(sessionId);
  const startedAt = new Date().toISOString();
  if (existing) {
    await store.update(sessionId, { status: 'running', error: null });
  } else {
    await store.create({
      id: sessionId,
      status: 'running',
      messages: [],
      iteration: 0,
      createdAt: startedAt,
      updatedAt: startedAt,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      archiveRefs: [],
    });
  }
  const user = userMessage(request);
  const repairs = unansweredCallResults(existing?.messages ?? []);
  await store.update(sessionId, { appendMessages: [...repairs, withoutMedia(user)] });
  return {
    continued: existing !== undefined,
    transcript: [...(existing?.messages ?? []), ...repairs, user],
    startedAt,
    complete: (content) => store.update(sessionId, { status: 'completed', finalContent: content }),
    fail: (error) =>
      store.update(sessionId, {
        status: 'failed',
        error: { code: error.code, message: error.message },
      }),
  };
}

function userMessage(request: RunRequest): UserMessage {
  const content: UserContentPart[] = request.inputContent
    ? [...request.inputContent]
    : [{ type: 'text', text: request.input ?? '' }];
  return { role: 'user', content };
}
