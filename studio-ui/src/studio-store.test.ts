import { describe, expect, it } from 'vitest';
import type { ParkedWait } from '../../src/studio/api-types.js';
import { isOpenWait, reduceStudioState, type StudioState } from './studio-store.js';

const wait: ParkedWait = {
  id: 'w1',
  sessionId: 's1',
  runId: 'r1',
  kind: 'approval',
  toolName: 'mcp__fs__write',
  arguments: { path: 'a' },
  createdAt: '2026-01-01T00:00:00.000Z',
  fingerprint: 'f',
  status: 'pending',
  expired: false,
};
const state: StudioState = {
  connected: true,
  servers: [],
  approvals: [],
  elicitations: [],
  waits: [wait, { ...wait, sessionId: 's2' }],
  resourceUpdates: {},
};

describe('the parked runs’ waits in the page state', () => {
  it('shows a wait decided in another tab as decided, that wait only', () => {
    const decided: ParkedWait = {
      ...wait,
      status: 'decided',
      decision: { decision: 'allow' },
      decidedAt: '2026-01-01T00:01:00.000Z',
    };
    const next = reduceStudioState(state, { kind: 'wait.decided', wait: decided });
    expect(next.waits).toEqual([decided, { ...wait, sessionId: 's2' }]);
    expect(next.waits.filter(isOpenWait)).toHaveLength(1);
  });

  it('counts only pending waits that have not expired as open', () => {
    expect(isOpenWait(wait)).toBe(true);
    expect(isOpenWait({ ...wait, expired: true })).toBe(false);
    expect(isOpenWait({ ...wait, status: 'decided' })).toBe(false);
  });
});
