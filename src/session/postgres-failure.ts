import type { Pool } from 'pg';
import { MusterError, redact, redactedCause } from '../errors/index.js';
import type { SessionFailureReason } from '../errors/index.js';

/**
 * The server a PostgreSQL store talks to, as its failures name it (never the password), and
 * the secrets its failures' causes are redacted with.
 */
export interface PostgresTarget {
  readonly host: string | undefined;
  readonly port: string | undefined;
  readonly database: string | undefined;
  readonly user: string | undefined;
  /** The password (as written and decoded), and `PGPASSWORD` when set. */
  readonly secrets: readonly string[];
}

/** The driver's timeouts a store's failures are measured against, in ms (unset: none). */
export interface PostgresTimeouts {
  readonly connectMs: number | undefined;
  readonly queryMs: number | undefined;
}

/** A bound of the store that passed before the driver failed (its timeouts carry no code). */
export interface PostgresTimedOut {
  /** The store option that sets the bound. */
  readonly option: 'connectTimeoutMs' | 'queryTimeoutMs';
  readonly ms: number;
}

interface Parts {
  host?: unknown;
  port?: unknown;
  database?: unknown;
  user?: unknown;
  password?: unknown;
  rawPassword?: unknown;
  connectionString?: unknown;
}

/** What the failures of a store on `source` (a connection string or the host's pool) name. */
export function postgresTarget(source: Pool | { connectionString: string }): PostgresTarget {
  const given = 'connectionString' in source ? undefined : (source as { options?: Parts }).options;
  const parts: Parts = given ?? {};
  const text = 'connectionString' in source ? source.connectionString : parts.connectionString;
  const parsed = typeof text === 'string' ? parseConnectionString(text) : {};
  const pick = (key: keyof Parts): string | undefined => {
    const value = parts[key] ?? parsed[key];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  };
  const passwords = [
    parsed.password,
    parsed.rawPassword,
    parts.password,
    process.env['PGPASSWORD'],
  ];
  const secrets = passwords.flatMap((s) =>
    typeof s === 'string' && s !== '' ? [s, ...encodings(s)] : [],
  );
  return {
    host: pick('host'),
    port: pick('port'),
    database: pick('database'),
    user: pick('user'),
    secrets: [...new Set(secrets)],
  };
}

/** The parts of a `postgres://user:password@host:port/db?…` connection string. */
function parseConnectionString(text: string): Parts {
  try {
    const url = new URL(text);
    return {
      host: decoded(url.hostname) || undefined,
      port: url.port || undefined,
      database: decoded(url.pathname.slice(1)) || undefined,
      user: decoded(url.username) || url.searchParams.get('user') || undefined,
      password: url.searchParams.get('password') ?? (decoded(url.password) || undefined),
      // as the URL writes it: percent-encoded where encodeURIComponent may not agree
      rawPassword: url.password || undefined,
    };
  } catch {
    // not a URL the parser takes (a host it refuses): its user info is still masked
    const password = /^[a-z]+:\/\/[^:@/]*:([^@]*)@/i.exec(text)?.[1];
    return password === undefined ? {} : { password: decoded(password), rawPassword: password };
  }
}

/** The forms a password may take in a connection string: as given, and percent-encoded. */
function encodings(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  return encoded === secret ? [] : [encoded];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The typed form of a failure of the PostgreSQL store: a Muster error (an unknown session, a
 * lease held elsewhere) as it is, anything else `SESSION_STORE_FAILED` whose `details.reason`
 * comes from the driver's SQLSTATE (`28P01`, `3D000`…) or Node.js's errno code
 * (`ECONNREFUSED`, `ENOTFOUND`…), never message text. A failure without a code that came once
 * one of the store's bounds had passed (`timedOut`: the driver's timeouts carry no code) is
 * `server-unreachable` with `details.timeoutMs`. The message says what to do; the cause is a
 * copy with the connection's password masked.
 */
export function postgresStoreError(
  err: unknown,
  target: PostgresTarget,
  timedOut?: PostgresTimedOut,
): unknown {
  if (MusterError.isInstance(err)) return err;
  const code = errorCode(err);
  if (code === undefined && timedOut) return timeoutError(err, target, timedOut);
  const reason = reasonOf(code);
  return new MusterError('SESSION_STORE_FAILED', messageOf(err, reason, code, target), {
    cause: redactedCause(err, target.secrets),
    details: {
      ...(reason !== undefined ? { reason } : {}),
      store: 'postgres',
      ...(code !== undefined ? { storeCode: code } : {}),
      ...(target.host !== undefined ? { host: target.host } : {}),
      ...(target.port !== undefined ? { port: target.port } : {}),
      ...(target.database !== undefined ? { database: target.database } : {}),
    },
  });
}

function timeoutError(err: unknown, target: PostgresTarget, timedOut: PostgresTimedOut) {
  const what = timedOut.option === 'connectTimeoutMs' ? 'a connection' : 'an answer';
  return new MusterError(
    'SESSION_STORE_FAILED',
    `The session store got no ${what} from ${serverName(target)} within ${timedOut.ms} ms (${timedOut.option}): check that the server is running and that the network to it does not drop packets, or raise ${timedOut.option}.`,
    {
      cause: redactedCause(err, target.secrets),
      details: {
        reason: 'server-unreachable',
        store: 'postgres',
        timeoutMs: timedOut.ms,
        ...(target.host !== undefined ? { host: target.host } : {}),
        ...(target.port !== undefined ? { port: target.port } : {}),
        ...(target.database !== undefined ? { database: target.database } : {}),
      },
    },
  );
}

function serverName(target: PostgresTarget): string {
  return target.host !== undefined
    ? `PostgreSQL at ${target.host}${target.port !== undefined ? `:${target.port}` : ''}`
    : 'the PostgreSQL server';
}

/** The error's own code, else that of the first of the attempts it aggregates. */
function errorCode(err: unknown): string | undefined {
  const fact = err as { code?: unknown; errors?: unknown } | null | undefined;
  if (typeof fact?.code === 'string') return fact.code;
  if (Array.isArray(fact?.errors)) {
    const inner = (fact.errors as { code?: unknown }[])[0]?.code;
    if (typeof inner === 'string') return inner;
  }
  return undefined;
}

const UNREACHABLE: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  // cannot_connect_now: the server is starting up or shutting down
  '57P03',
]);

function reasonOf(code: string | undefined): SessionFailureReason | undefined {
  if (code === undefined) return undefined;
  // SQLSTATE class 08: connection exception
  if (UNREACHABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'server-unreachable';
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host-not-found';
    case '28000': // invalid_authorization_specification: no such role, or pg_hba.conf refuses it
    case '28P01': // invalid_password
      return 'auth-failed';
    case '3D000': // invalid_catalog_name
      return 'database-missing';
    case '42501': // insufficient_privilege
      return 'not-permitted';
    case '53100': // disk_full
      return 'disk-full';
    default:
      return undefined;
  }
}

function messageOf(
  err: unknown,
  reason: SessionFailureReason | undefined,
  code: string | undefined,
  target: PostgresTarget,
): string {
  const server = serverName(target);
  const seen = code !== undefined ? ` (${code})` : '';
  const user = target.user !== undefined ? ` '${target.user}'` : '';
  const database = target.database !== undefined ? ` '${target.database}'` : '';
  switch (reason) {
    case 'server-unreachable':
      return `The session store could not reach ${server}${seen}: check that the server is running and that the connection string's host and port are right.`;
    case 'host-not-found':
      return `The session store could not find the host of ${server}${seen}: check the host name in the connection string.`;
    case 'auth-failed':
      return `The session store was refused by ${server} as user${user}${seen}: check the user and password in the connection string, that the role exists (CREATE ROLE) and that pg_hba.conf lets it connect.`;
    case 'database-missing':
      return `The session store's database${database} does not exist on ${server}${seen}: create it (createdb${database.replaceAll("'", '')}, or CREATE DATABASE) or fix the database name in the connection string.`;
    case 'not-permitted':
      return `The session store's user${user} lacks a privilege on ${server}${seen}: grant it CREATE on the database (the store creates its schema and tables on first use) and the rights on the store's tables.`;
    case 'disk-full':
      return `The session store could not write to ${server}${seen}: the server's disk is full; free space and try again.`;
    default:
      return `The session store's request to ${server} failed${seen}: ${firstLine(err, target.secrets)}. Check that the server is reachable and try again.`;
  }
}

/** The first line of the driver's message, redacted: for a failure no code explains. */
function firstLine(err: unknown, secrets: readonly string[]): string {
  const message = err instanceof Error ? err.message : String(err);
  return redact(message.split('\n')[0]!.trim(), secrets).replace(/\.$/, '');
}
