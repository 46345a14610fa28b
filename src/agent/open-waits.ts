import type { SessionStore, Wait, WaitDecision } from '../session/index.js';

// What a session's waits are now: its stored waits, which of them still hold it, and what a
// link to a delegated run's wait stands for. Read by runs, `decide` and the waits inbox.

/** Every wait a session holds (all pages). */
export async function sessionWaits(store: SessionStore, sessionId: string): Promise<Wait[]> {
  const waits = store.waits;
  if (!waits) return [];
  const all: Wait[] = [];
  let cursor: string | undefined;
  do {
    const page = await waits.list({ sessionId, limit: 1000, ...(cursor ? { cursor } : {}) });
    all.push(...page.waits);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

/** True when `wait` is past its `expiresAt` at `now`. */
export function isExpired(wait: Wait, now: number): boolean {
  return wait.expiresAt !== undefined && Date.parse(wait.expiresAt) <= now;
}

/**
 * How many delegated runs deep a wait's link is followed (`Wait.child`, nested delegations):
 * links in a store are data, and a chain past this (a cycle) is not followed further.
 */
export const MAX_WAIT_LINKS = 32;

/**
 * The waits as they stand: a link (a wait of a delegated run, `Wait.child`) takes the status,
 * decision and expiry of the wait it links to, followed through nested delegations (at most
 * {@link MAX_WAIT_LINKS} deep; past that a link stands as it is stored); a link whose wait is
 * gone (its run resumed it) counts as decided.
 */
export async function liveWaits(
  store: SessionStore,
  waits: readonly Wait[],
  links = 0,
): Promise<Wait[]> {
  return Promise.all(
    waits.map(async (wait) => {
      if (!wait.child || !store.waits || links >= MAX_WAIT_LINKS) return wait;
      const [linked] = await liveWaits(
        store,
        [
          (await store.waits.get(wait.child.sessionId, wait.child.waitId)) ?? {
            ...wait,
            child: undefined,
            status: 'decided' as const,
          },
        ],
        links + 1,
      );
      const { status, decision, decidedAt, expiresAt } = linked!;
      const { expiresAt: _own, decision: _d, decidedAt: _at, ...rest } = wait;
      return {
        ...rest,
        status,
        ...(decision !== undefined ? { decision } : {}),
        ...(decidedAt !== undefined ? { decidedAt } : {}),
        ...(expiresAt !== undefined ? { expiresAt } : {}),
      };
    }),
  );
}

/**
 * The waits that still hold a session: pending and not expired. A `task` wait never holds
 * it: it needs no decision, a resume polls the task again (SPEC 15.3).
 */
export function openWaits(waits: readonly Wait[], now: number): Wait[] {
  return waits.filter((w) => w.status === 'pending' && w.kind !== 'task' && !isExpired(w, now));
}

/**
 * A wait as hosts see it (events, `send()`, `agent.sessions.waits()`, `decide`): without the
 * server's protocol state (`requestState`) and the answers already given with it
 * (`inputResponses`), which only the resumed run sends back.
 */
export function publicWait(wait: Wait): Wait {
  if (wait.requestState === undefined && wait.inputResponses === undefined) return wait;
  const { requestState: _state, inputResponses: _answers, ...rest } = wait;
  return rest;
}

/**
 * A decision as `wait.decided` reports it (logged, seen by watchers): an elicitation answer's
 * `content` is left out, as `elicitation.completed` leaves it out; its action and reason stay.
 */
export function shownDecision(decision: WaitDecision): WaitDecision {
  if (!('action' in decision) || decision.content === undefined) return decision;
  const { content: _content, ...rest } = decision;
  return rest;
}
