import { describe, expect, it } from 'vitest';
import { SessionError } from '../errors/index.js';
import { MemorySessionStore } from '../session/index.js';
import type { SessionLease, SessionStore } from '../session/index.js';
import type { AgentScope } from './agent-scope.js';
import { claimSession } from './session-claim.js';

/** The part of an agent's scope a claim uses. */
function scope(sessionLeaseMs: number): AgentScope {
  const running = new Map<string, Promise<void>>();
  return {
    options: { sessionLeaseMs },
    running,
    startRun: (id: string) => {
      running.set(id, Promise.resolve());
      return () => running.delete(id);
    },
    reportError: () => undefined,
  } as unknown as AgentScope;
}

/** A store whose lease is granted once and never confirmed again (its store cut off). */
function silentStore(): SessionStore {
  const lease: SessionLease = {
    token: 1,
    owner: 'run',
    renew: () => new Promise<void>(() => undefined),
    release: () => Promise.resolve(),
  };
  const store = new MemorySessionStore();
  return Object.assign(store, { acquire: () => Promise.resolve(lease) });
}

describe('claimSession', () => {
  it('while the lease holds, a fenced operation settles as it does, and every write carries the lease', async () => {
    const claim = claimSession(scope(60_000), 's1', () => undefined);
    expect(claim.writeOptions()).toEqual({});
    await claim.lease(silentStore(), 'run');
    expect(claim.writeOptions()).toEqual({ lease: expect.objectContaining({ token: 1 }) });
    expect(claim.writeOptions()).toBe(claim.writeOptions());
    await expect(claim.fenced(() => Promise.resolve(7))).resolves.toBe(7);
    const failure = new Error('store failed');
    await expect(claim.fenced(() => Promise.reject(failure))).rejects.toBe(failure);
    await claim.release(() => undefined);
  });

  it('rejects an operation in flight at once when the lease is lost, and refuses later ones', async () => {
    const lost: SessionError[] = [];
    const claim = claimSession(scope(50), 's2', (reason) => lost.push(reason));
    await claim.lease(silentStore(), 'run');
    // a write that never returns: the lease's deadline (4/5 of its TTL) stops waiting for it
    const hanging = claim.fenced(() => new Promise<never>(() => undefined));
    const error = await hanging.catch((e: unknown) => e);
    expect(SessionError.isInstance(error)).toBe(true);
    expect((error as SessionError).code).toBe('SESSION_ALREADY_RUNNING');
    expect(lost).toEqual([error]);
    expect(claim.lostReason).toBe(error);
    await expect(claim.fenced(() => Promise.resolve(1))).rejects.toBe(error);
    await claim.release(() => undefined);
  });
});
