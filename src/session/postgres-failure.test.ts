import { inspect } from 'node:util';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MusterError, SessionError } from '../errors/index.js';
import { postgresStoreError, postgresTarget } from './postgres-failure.js';

const CANARY = 'canary-pw-91c3e0';

/** An error of the shape `pg` and Node.js give: a message and a typed `code`. */
function coded(code: string, message = 'failed'): Error {
  return Object.assign(new Error(message), { code });
}

function typed(err: unknown, target = postgresTarget({ connectionString: 'postgres://u@h:1/d' })) {
  const out = postgresStoreError(err, target);
  if (!MusterError.isInstance(out)) throw new Error('expected a MusterError');
  return out;
}

describe('postgresStoreError', () => {
  it('item-13: decides the reason on the SQLSTATE or errno code, never the message', () => {
    const cases: [string, string | undefined][] = [
      ['ECONNREFUSED', 'server-unreachable'],
      ['ETIMEDOUT', 'server-unreachable'],
      ['08006', 'server-unreachable'],
      ['57P03', 'server-unreachable'],
      ['ENOTFOUND', 'host-not-found'],
      ['EAI_AGAIN', 'host-not-found'],
      ['28000', 'auth-failed'],
      ['28P01', 'auth-failed'],
      ['3D000', 'database-missing'],
      ['42501', 'not-permitted'],
      ['53100', 'disk-full'],
      ['40001', undefined],
    ];
    for (const [code, reason] of cases) {
      // the message says something else: only the code decides
      const err = typed(coded(code, 'database "x" does not exist'));
      expect(err.code).toBe('SESSION_STORE_FAILED');
      expect(err.details['reason']).toBe(reason);
      expect(err.details['storeCode']).toBe(code);
    }
    expect(typed(new Error('connect ECONNREFUSED')).details['reason']).toBeUndefined();
    // Node's attempts over several addresses: the first attempt's code
    const attempts = new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]);
    expect(typed(attempts).details['reason']).toBe('server-unreachable');
  });

  it('item-12: a code-less failure once a bound passed is server-unreachable, naming the option', () => {
    const target = postgresTarget({ connectionString: 'postgres://u@h:1/d' });
    const bound = { option: 'connectTimeoutMs', ms: 250 } as const;
    const out = postgresStoreError(new Error('timeout expired'), target, bound);
    if (!MusterError.isInstance(out)) throw new Error('expected a MusterError');
    expect(out.code).toBe('SESSION_STORE_FAILED');
    expect(out.details).toMatchObject({ reason: 'server-unreachable', timeoutMs: 250 });
    expect(out.message).toContain('connectTimeoutMs');
    // a coded failure is decided by its code, whenever it came
    const coded28 = postgresStoreError(coded('28P01'), target, bound) as MusterError;
    expect(coded28.details['reason']).toBe('auth-failed');
  });

  it('item-13: keeps a Muster error as it is', () => {
    const own = new SessionError('SESSION_NOT_FOUND', 'gone', { sessionId: 's' });
    expect(postgresStoreError(own, postgresTarget({ connectionString: 'postgres://h/d' }))).toBe(
      own,
    );
  });

  it('item-13: names the server and database from the connection string, never the password', () => {
    const target = postgresTarget({
      connectionString: `postgres://app:${CANARY}@db.internal:6543/sessions`,
    });
    expect(target).toMatchObject({
      host: 'db.internal',
      port: '6543',
      database: 'sessions',
      user: 'app',
    });
    const err = typed(coded('3D000'), target);
    expect(err.message).toContain(
      "database 'sessions' does not exist on PostgreSQL at db.internal:6543",
    );
    expect(err.details).toMatchObject({ host: 'db.internal', port: '6543', database: 'sessions' });
    expect(JSON.stringify(target.host) + err.message).not.toContain(CANARY);
  });

  it('item-13: masks the password in the cause, as written and percent-encoded', () => {
    const password = `${CANARY}/#?`;
    const connectionString = `postgres://app:${encodeURIComponent(password)}@h:1/d`;
    const target = postgresTarget({ connectionString });
    // a driver or a proxy that quotes what it was given
    const leaky = Object.assign(coded('08001', `cannot connect with ${connectionString}`), {
      detail: `password=${password}`,
    });
    const shown = inspect(typed(leaky, target), { depth: 20 });
    expect(shown).toContain('[redacted]');
    expect(shown).not.toContain(CANARY);
  });

  it("item-13: reads a host's pool's options, and the password of a URL it cannot parse", () => {
    const pool = new pg.Pool({ host: 'pooled', port: 7000, database: 'db', password: CANARY });
    const fromPool = postgresTarget(pool);
    expect(fromPool).toMatchObject({ host: 'pooled', port: '7000', database: 'db' });
    expect(fromPool.secrets).toContain(CANARY);
    void pool.end();
    const odd = postgresTarget({ connectionString: `postgres://u:${CANARY}@bad host/x` });
    expect(odd.secrets).toContain(CANARY);
  });
});
