import { Option } from 'commander';
import type { Command } from 'commander';
import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { CliContext } from './cli-context.js';
import { cliPolicyVersion } from './cli-policy-version.js';
import { connectUserServers } from './connect-user-servers.js';
import { EXIT_CODES } from './exit-codes.js';
import { setExitCode } from './exit-status.js';
import { chooseModel } from './model-choice.js';
import { collect } from './run-options.js';
import { workerStoreUrl } from './worker-store-url.js';

/** The options of `muster worker`. */
interface WorkerCommandOptions {
  readonly concurrency: number;
  readonly queue?: string;
  readonly schema?: string;
  readonly bossSchema?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly default: 'ask' | 'allow' | 'deny';
  readonly park?: boolean;
  readonly system?: string;
  readonly leaseMs?: number;
  readonly drainMs?: number;
}

/**
 * `muster worker`: takes queued runs from PostgreSQL with pg-boss (SPEC 15.5, docs/cli.md),
 * with the model, MCP servers and policy `muster run` would use. The store comes from the
 * environment only (`MUSTER_STORE` or `DATABASE_URL`). SIGTERM or Ctrl-C drains (no new job;
 * current runs finish, park, or are handed back for another worker) and stops: exit 0.
 */
export function workerGroup(program: Command, ctx: CliContext): void {
  program
    .command('worker')
    .description(
      'take queued runs from PostgreSQL (pg-boss) until SIGTERM; the store comes from MUSTER_STORE or DATABASE_URL',
    )
    .option(
      '-c, --concurrency <n>',
      'runs this process takes at once (1 to 1000)',
      wholeNumber('--concurrency', 1, 1000),
      4,
    )
    .option('--queue <name>', "the pg-boss queue (default 'muster')")
    .option('--schema <name>', "the store's PostgreSQL schema (default 'public')")
    .option('--boss-schema <name>', "pg-boss's PostgreSQL schema (default 'pgboss')")
    .option(
      '-m, --model <provider:name>',
      'the model (default: MUSTER_MODEL): openai:<model>, anthropic:<model>, ollama:<model>, scripted:<file.json>',
    )
    .option('--base-url <url>', 'the API base URL (openai, ollama)')
    .option(
      '--allow <pattern>',
      'a tool pattern that runs without asking (mcp__srv__tool, mcp__srv__*, *, mcp_connect:<server>); repeat for more',
      collect,
    )
    .option('--deny <pattern>', 'a tool pattern that is always refused; repeat for more', collect)
    .addOption(
      new Option(
        '--default <decision>',
        'what happens to other calls: ask (refused: a worker has nobody to ask, unless --park), allow or deny',
      )
        .choices(['ask', 'allow', 'deny'])
        .default('ask'),
    )
    .option(
      '--park',
      'calls that --default ask leaves open park the run: decide them with muster decide, and a worker resumes it',
    )
    .option('--system <text>', 'the system prompt')
    .option(
      '--lease-ms <ms>',
      'how long a run whose worker died keeps its session before another worker resumes it (default 30000)',
      wholeNumber('--lease-ms', 1, 86_400_000),
    )
    .option(
      '--drain-ms <ms>',
      'on SIGTERM, how long current runs may go on before they are handed back (default 30000)',
      wholeNumber('--drain-ms', 0, 86_400_000),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ MUSTER_STORE=postgres://muster@db/muster muster worker --model openai:gpt-5-mini --allow 'mcp__files__*'
  $ DATABASE_URL=postgres://muster@db/muster muster worker --concurrency 4 --park`,
    )
    .action(async (options: WorkerCommandOptions, command: Command) => {
      setExitCode(command, await runWorker(ctx, options));
    });
}

async function runWorker(ctx: CliContext, options: WorkerCommandOptions): Promise<number> {
  const out = ctx.output();
  const url = workerStoreUrl(ctx.io.env);
  if (options.park === true && options.default !== 'ask')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--park parks the calls that --default ask leaves open; with --default ${options.default} nothing is asked. Drop --park or use --default ask.`,
      { details: { flag: '--park' } },
    );
  const { model, modelName } = await chooseModel(options.model, options.baseUrl, ctx.io);
  const [{ PostgresSessionStore }, { createWorker }] = await Promise.all([
    loadOptional(() => import('../session/postgres.js'), 'pg', 'the pg driver: npm i pg'),
    import('../worker/index.js'),
  ]);
  const store = new PostgresSessionStore({
    connectionString: url,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  });
  let agent: Agent | undefined;
  let worker: ReturnType<typeof createWorker> | undefined;
  const stopping = signalled();
  try {
    const policy: PolicyOptions = {
      ...(options.allow ? { allow: [...options.allow] } : {}),
      ...(options.deny ? { deny: [...options.deny] } : {}),
      default: options.default,
      rules: [connectUserServers(ctx.workdir(), ctx.home())],
      ...(options.park === true ? { park: true } : {}),
      version: cliPolicyVersion({
        ...(options.allow ? { allow: options.allow } : {}),
        ...(options.deny ? { deny: options.deny } : {}),
        default: options.default,
      }),
    };
    agent = createAgent({
      model,
      ...(modelName === undefined ? {} : { modelName }),
      ...(options.system === undefined ? {} : { system: options.system }),
      workdir: ctx.workdir(),
      sessionStore: store,
      ...(options.leaseMs === undefined ? {} : { sessionLeaseMs: options.leaseMs }),
      policy,
    });
    worker = createWorker({
      agent,
      connectionString: url,
      concurrency: options.concurrency,
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      ...(options.bossSchema === undefined ? {} : { schema: options.bossSchema }),
      ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
    });
    await worker.start();
    const queue = options.queue ?? 'muster';
    if (out.options.json)
      out.json({ status: 'started', queue, concurrency: options.concurrency, pid: process.pid });
    else
      out.line(
        `muster worker: taking runs from queue '${queue}' (concurrency ${options.concurrency}, pid ${process.pid}); SIGTERM or Ctrl-C drains and stops`,
      );
    await stopping.signal;
    out.notice('Draining: no new run; current runs finish or are handed back (again to quit)');
    await worker.drain();
    return EXIT_CODES.ok;
  } finally {
    stopping.dispose();
    await worker?.stop().catch(() => undefined);
    await agent?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
  }
}

/**
 * Resolves on the first SIGTERM or SIGINT; a second one exits at once (130), as `muster run`
 * does on a second Ctrl-C.
 */
function signalled(): { readonly signal: Promise<void>; dispose(): void } {
  let seen = 0;
  let resolve: () => void = () => undefined;
  const signal = new Promise<void>((r) => (resolve = r));
  const on = (): void => {
    seen++;
    if (seen > 1) process.exit(EXIT_CODES.aborted);
    resolve();
  };
  process.on('SIGTERM', on);
  process.on('SIGINT', on);
  return {
    signal,
    dispose: () => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
    },
  };
}

/** A module of an optional peer, or `INVALID_CONFIGURATION` saying what to install. */
async function loadOptional<T>(load: () => Promise<T>, name: string, what: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const code = (err as { code?: unknown } | undefined)?.code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
    throw new MusterError('INVALID_CONFIGURATION', `muster worker needs ${what}`, {
      cause: err,
      details: { reason: 'driver-missing', driver: name },
    });
  }
}

function wholeNumber(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `${flag} takes a whole number from ${min} to ${max}, not '${value}'.`,
        { details: { flag } },
      );
    return n;
  };
}
