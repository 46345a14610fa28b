import type PgBoss from 'pg-boss';
import type { Agent } from '../agent/index.js';
import type { Limits } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import {
  assertValid,
  checkedElsewhere,
  isObject,
  isPrincipalId,
  isString,
  oneOf,
  optional,
  shape,
} from '../util/index.js';
import type { Check } from '../util/index.js';

/** How often the lease sweep runs by default, in seconds (SPEC 15.5: it resumes runs whose owner died). */
export const SWEEP_SECONDS = 30;

/**
 * Options of {@link createWorker}: the agent whose runs the worker takes (on a
 * `PostgresSessionStore`), and pg-boss by connection string (the worker makes, installs and
 * stops its own) or a started `boss` the host owns (never started, migrated or stopped here).
 */
export type WorkerOptions = (
  | { readonly connectionString: string; readonly boss?: undefined }
  | { readonly boss: PgBoss; readonly connectionString?: undefined }
) & {
  /** The agent whose runs this worker takes; its session store must be a `PostgresSessionStore`. */
  readonly agent: Agent;
  /** Jobs (runs) this process takes at once (default 4, 1 to 1000). */
  readonly concurrency?: number;
  /**
   * The pg-boss queue of session jobs (default `muster`); letters, digits, `_` and `-`. The
   * lease sweep uses `<queue>-sweep`.
   */
  readonly queue?: string;
  /** How long `drain()` lets current runs go on before it stops them, in ms (default 30000). */
  readonly drainMs?: number;
  /**
   * The pg-boss schema (default `pgboss`). With `boss`, pass the schema that boss was made
   * with: the worker checks that its queue is found there.
   */
  readonly schema?: string;
  /**
   * How often the lease sweep runs, in seconds (default 30, 1 to 3600): with the agent's
   * `sessionLeaseMs`, it bounds how long a run whose worker died waits for another worker.
   */
  readonly sweepSeconds?: number;
  /**
   * Told about failures that change no run but need an operator (default: none): a resume
   * that could not be queued, repeated failed fetches or sweeps. Its own failures are dropped.
   */
  readonly onError?: (error: unknown) => unknown;
};

/**
 * A typed final answer a queued run asks for: a plain JSON Schema (a job is JSON, so a Standard
 * Schema object such as a Zod schema cannot be queued).
 */
export interface QueuedOutput {
  readonly schema: Readonly<Record<string, unknown>>;
  readonly name?: string;
  readonly description?: string;
}

/** What {@link Worker.enqueue} takes: the JSON part of a run request (SPEC 15.5). */
export interface EnqueueRequest {
  /** The user's message. */
  readonly input: string;
  /** The session to run in (default: a new id). A session that has messages is continued. */
  readonly sessionId?: string;
  /** The user the run acts for (SPEC 15.4). */
  readonly principal?: string;
  readonly modelName?: string;
  readonly system?: string;
  readonly limits?: Partial<Limits>;
  readonly reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
  readonly promptCacheKey?: string;
  readonly output?: QueuedOutput;
  readonly outputRepairs?: number;
}

/** The worker's options with their defaults applied. */
export interface ResolvedWorkerOptions {
  readonly agent: Agent;
  readonly connectionString: string | undefined;
  readonly boss: PgBoss | undefined;
  readonly concurrency: number;
  readonly queue: string;
  readonly drainMs: number;
  readonly schema: string;
  readonly sweepSeconds: number;
  readonly onError: ((error: unknown) => unknown) | undefined;
}

const NAME = /^[A-Za-z0-9_-]{1,50}$/;
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

const integerIn =
  (min: number, max: number): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max
      ? undefined
      : `must be a whole number from ${min} to ${max}, not ${String(v)}`;

const optionChecks = shape({
  agent: checkedElsewhere,
  connectionString: optional(isString(/./, 'a non-empty postgres:// connection string')),
  boss: checkedElsewhere,
  concurrency: optional(integerIn(1, 1000)),
  queue: optional(isString(NAME, "1-50 of letters, digits, '_' or '-'")),
  drainMs: optional(integerIn(0, 86_400_000)),
  schema: optional(isString(SCHEMA, 'a lowercase PostgreSQL identifier')),
  sweepSeconds: optional(integerIn(1, 3600)),
  onError: optional((v) => (typeof v === 'function' ? undefined : 'must be a function')),
} satisfies Record<keyof WorkerOptions, Check>);

/**
 * Checks the worker's options (`INVALID_CONFIGURATION`, naming the option) and applies the
 * defaults.
 */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  assertValid(options, optionChecks, 'createWorker options');
  const agent = options.agent as unknown;
  if (typeof agent !== 'object' || agent === null || typeof (agent as Agent).resume !== 'function')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'createWorker needs `agent`: the agent (createAgent) whose runs it takes, on a PostgresSessionStore.',
    );
  const boss = options.boss as unknown;
  if ((options.connectionString === undefined) === (boss === undefined))
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'createWorker takes exactly one of `connectionString` (the worker makes its own pg-boss) and `boss` (a started PgBoss of yours).',
    );
  if (boss !== undefined && typeof (boss as PgBoss).fetch !== 'function')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      '`boss` must be a PgBoss instance (pg-boss 10), started by you.',
    );
  return {
    agent: options.agent,
    connectionString: options.connectionString,
    boss: options.boss,
    concurrency: options.concurrency ?? 4,
    queue: options.queue ?? 'muster',
    drainMs: options.drainMs ?? 30_000,
    schema: options.schema ?? 'pgboss',
    sweepSeconds: options.sweepSeconds ?? SWEEP_SECONDS,
    onError: options.onError,
  };
}

const sessionIdCheck = isString(
  /^[A-Za-z0-9._:-]{1,200}$/,
  "1-200 of letters, digits, '.', '_', ':' or '-'",
);

const outputCheck = shape({
  schema: (v) => isObject(v) ?? (isJsonData(v) ? undefined : 'must be plain JSON data'),
  name: optional(isString()),
  description: optional(isString()),
});

const enqueueChecks = shape({
  input: isString(),
  sessionId: optional(sessionIdCheck),
  principal: optional(isPrincipalId),
  modelName: optional(isString(/^.{1,200}$/, '1-200 characters')),
  system: optional(isString()),
  limits: optional((v) => isObject(v) ?? (isJsonData(v) ? undefined : 'must be plain JSON data')),
  reasoningEffort: optional(oneOf(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])),
  promptCacheKey: optional(isString(/^.{1,256}$/, '1-256 characters')),
  output: optional(outputCheck),
  outputRepairs: optional(integerIn(0, 100)),
} satisfies Record<keyof EnqueueRequest, Check>);

/** Checks what `enqueue()` was given (`INVALID_CONFIGURATION`, naming the field). */
export function assertEnqueueRequest(request: unknown): asserts request is EnqueueRequest {
  assertValid(request, enqueueChecks, 'enqueue request');
}

/** True for plain JSON data: null, booleans, finite numbers, strings, arrays and plain objects. */
function isJsonData(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonData(v, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as object).every((v) => isJsonData(v, depth + 1));
}
