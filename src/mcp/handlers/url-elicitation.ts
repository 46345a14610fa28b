import type { ToolExecutionContext, ToolReturn } from '../../tools/index.js';
import { answerElicitation } from './elicitation-handler.js';
import type { ElicitationDeps } from './elicitation-handler.js';
import { findInCauseChain } from '../failures/cause-chain.js';
import { toElicitationRequest } from './client-setup.js';
import type { Emit } from '../contracts/mcp-defaults.js';

/**
 * Hands the URLs of a `-32042` error to the elicitation handler and tells the model. `emit` is
 * the calling run's own event sink (the error came back to that call, so nothing is guessed).
 */
export type UrlElicitationResponder = (
  server: string,
  elicitations: readonly Readonly<Record<string, unknown>>[],
  ctx: ToolExecutionContext,
  emit: Emit,
) => Promise<ToolReturn>;

const URL_ELICITATION_REQUIRED = -32042;

/** The elicitations of a URL-elicitation-required error (`-32042`) in a cause chain, if any. */
export function urlElicitationsOf(err: unknown): Readonly<Record<string, unknown>>[] | undefined {
  return findInCauseChain(err, (e) => {
    const { code, data } = e as { code?: unknown; data?: { elicitations?: unknown } };
    return code === URL_ELICITATION_REQUIRED && Array.isArray(data?.elicitations)
      ? (data.elicitations as Readonly<Record<string, unknown>>[])
      : undefined;
  });
}

/**
 * Answers a `-32042` through the same elicitation handler (URL mode; Muster never opens the
 * URL) and gives the model a clear error result: the step the user was asked to complete, and
 * that the call can be tried again once it is done.
 */
export function urlElicitationResponder(
  deps: (server: string) => Omit<ElicitationDeps, 'emit'> | undefined,
): UrlElicitationResponder {
  return async (server, elicitations, ctx, emit) => {
    const found = deps(server);
    const d = found && { ...found, emit };
    const actions: string[] = [];
    for (const raw of elicitations) {
      const request = toElicitationRequest(server, { ...raw, mode: 'url' });
      if (!d) {
        actions.push('not shown (no elicitation handler)');
        continue;
      }
      try {
        const answer = await answerElicitation(
          request,
          {
            server,
            signal: ctx.signal,
            sessionId: ctx.sessionId,
            runId: ctx.runId,
            callId: ctx.callId,
          },
          d,
        );
        actions.push(answer.action);
      } catch (err) {
        actions.push(`refused (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    return {
      isError: true,
      content: `Error [URL_ELICITATION_REQUIRED]: server '${server}' needs the user to complete ${elicitations.length} step(s) in a browser before this tool can run. The user was asked (answers: ${actions.join(', ')}). Call the tool again once the user has completed it.`,
    };
  };
}
