import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, scriptedModel } from '../../src/index.js';
import type { SessionBudget } from '../../src/index.js';
import { startStudio } from '../../src/studio/index.js';
import type { RunningStudio } from '../../src/studio/index.js';
import type { SessionView } from '../../src/studio/api-types.js';
import { sessionState } from '../support/session-state.js';
import { signIn } from '../support/studio-client.js';
import type { StudioClient } from '../support/studio-client.js';

// The studio's session view carries what a run cost and its budget (SPEC 15.4), as the store
// has them: a real studio over HTTP on a store that holds such a session.

const budget: SessionBudget = {
  limits: { maxCostUsd: 0.01, onBudgetExhausted: 'fail' },
  spent: { tokens: 4200, costUsd: 0.010065, toolCalls: 3, durationMs: 812 },
  warned: ['maxCostUsd'],
  exhausted: 'maxCostUsd',
};

let studio: RunningStudio;
let client: StudioClient;

beforeAll(async () => {
  const store = new MemorySessionStore();
  await store.create(
    sessionState('spent', {
      status: 'failed',
      usage: { inputTokens: 4000, outputTokens: 200, totalTokens: 4200, costUsd: 0.010065 },
      budget,
    }),
  );
  await store.create(sessionState('plain', { status: 'completed' }));
  studio = await startStudio({ model: scriptedModel([]), sessionStore: store });
  client = await signIn(studio.url);
});
afterAll(async () => {
  await studio?.close();
});

describe('the studio session view', () => {
  it("shows a run's cost and budget", async () => {
    const view = (await client.get('/api/sessions/spent')).json as SessionView;
    expect(view.usage).toMatchObject({ costUsd: 0.010065 });
    expect(view.budget).toEqual(budget);
    const plain = (await client.get('/api/sessions/plain')).json as SessionView;
    expect(plain.budget).toBeUndefined();
  });
});
