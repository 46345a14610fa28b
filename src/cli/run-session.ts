import { createAgent } from '../agent/index.js';
import type { Agent, AgentEvent, ModelPrice } from '../agent/index.js';
import { MusterError, toMusterError } from '../errors/index.js';
import type { McpOptions } from '../mcp/index.js';
import type { PolicyOptions } from '../policy/index.js';
import type { CliContext } from './cli-context.js';
import { connectUserServers } from './connect-user-servers.js';
import { EXIT_CODES, exitCodeOf } from './exit-codes.js';
import { cliPolicyVersion } from './cli-policy-version.js';
import { chooseModel } from './model-choice.js';
import type { AgentCommandOptions } from './run-options.js';
import { RunPrinter } from './run-printer.js';
import { openStore } from './store-choice.js';
import { PromptQueue, SessionAllowances, ttyApprover } from './tty-approver.js';
import { ttyElicitation } from './tty-elicitation.js';

/** The options `muster run` and `muster sessions resume` share. */
export interface RunOptions extends AgentCommandOptions {
  readonly leaseMs?: number;
  /** `--park`: what `--default ask` leaves open parks the run (`policy.park`), never asked. */
  readonly park?: boolean;
  /** `--price`: the model's price (the agent's `pricing` for the model in use, SPEC 15.4). */
  readonly price?: ModelPrice;
}

/** What a run answers with, as `runSession` prints it. */
export interface RunAnswer {
  /**
   * The `--output-schema` file the run's typed answer follows: stdout gets the validated value
   * as JSON instead of the streamed text, `--json` adds it as `output`, and `OUTPUT_INVALID`
   * names the flag and the file.
   */
  readonly outputSchemaFile?: string;
}

/** How a run is started on the agent: `run()` with a prompt, or `resume()`. */
export type StartRun = (agent: Agent, signal: AbortSignal) => AsyncIterable<AgentEvent>;

/**
 * Runs an agent for `muster run` / `muster sessions resume` and returns the exit code:
 * builds the model, the session store and the policy (prompts on a TTY; `--allow`, `--deny`
 * and `--default` otherwise, never waiting for input; with `--park` open calls park the run
 * instead), shows the events as they happen (or one JSON document at the end with `--json`;
 * a typed answer as its value, see {@link RunAnswer}; a parked run's waits and the commands
 * to decide and resume), and turns Ctrl-C into an abort: the session is kept and the command
 * exits 130; a second Ctrl-C exits at once. A parked run exits 0 (docs/cli.md).
 */
export async function runSession(
  ctx: CliContext,
  options: RunOptions,
  start: StartRun,
  answer: RunAnswer = {},
): Promise<number> {
  const out = ctx.output();
  const park = options.park === true;
  const policyDefault = options.default ?? 'ask';
  if (park && policyDefault !== 'ask')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--park parks the calls that --default ask leaves open; with --default ${policyDefault} nothing is asked. Drop --park or use --default ask.`,
      { details: { flag: '--park' } },
    );
  const { model, modelName } = await chooseModel(options.model, options.baseUrl, ctx.io);
  const opened = await openStore(ctx, options.store);
  const controller = new AbortController();
  let interrupts = 0;
  const interrupt = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(EXIT_CODES.aborted);
    out.notice('Interrupted: stopping the run (Ctrl-C again to quit at once)');
    controller.abort(new MusterError('ABORTED', 'Interrupted with Ctrl-C'));
  };
  let agent: Agent | undefined;
  const typed = answer.outputSchemaFile !== undefined;
  const storeSuffix = options.store === undefined ? '' : ' --store <url>';
  const printer = new RunPrinter(out, {
    streamText: !typed,
    commandSuffix: storeSuffix,
    diagnose: (server) => {
      if (agent === undefined) throw new Error('no agent yet');
      return agent.mcp.diagnostics(server);
    },
  });
  const events: AgentEvent[] = [];
  // everything after the store is opened is inside the try, so the finally closes the store
  // and removes the SIGINT handler even when the setup fails (an invalid mcp.json)
  try {
    process.on('SIGINT', interrupt);
    if (park && (opened.where === 'memory' || opened.store.waits === undefined))
      throw new MusterError(
        'INVALID_CONFIGURATION',
        '--park needs a session store that outlives this command, to keep the waits: the SQLite file (install better-sqlite3, see the notice above) or --store postgres://….',
        { details: { flag: '--park' } },
      );
    // with --park nobody is asked, even on a terminal: open calls park
    const interactive = ctx.io.interactive && !park;
    const queue = new PromptQueue({
      io: ctx.io,
      output: out.options.json ? ctx.io.stderr : ctx.io.stdout,
      onInterrupt: interrupt,
    });
    const allowances = new SessionAllowances();
    const policy: PolicyOptions = {
      ...(options.allow ? { allow: [...options.allow] } : {}),
      ...(options.deny ? { deny: [...options.deny] } : {}),
      default: policyDefault,
      rules: [
        connectUserServers(ctx.workdir(), ctx.home()),
        ...(interactive ? [allowances.rule()] : []),
      ],
      ...(interactive ? { approve: ttyApprover(queue, allowances) } : {}),
      ...(park ? { park: true } : {}),
      version: cliPolicyVersion({
        ...(options.allow ? { allow: options.allow } : {}),
        ...(options.deny ? { deny: options.deny } : {}),
        default: policyDefault,
      }),
    };
    const mcp: McpOptions = ctx.io.interactive
      ? { handlers: { elicitation: ttyElicitation(queue) }, handlerTimeoutMs: 30 * 60_000 }
      : {};
    agent = createAgent({
      model,
      ...(modelName === undefined ? {} : { modelName }),
      ...(options.system === undefined ? {} : { system: options.system }),
      workdir: ctx.workdir(),
      sessionStore: opened.store,
      ...(options.leaseMs === undefined ? {} : { sessionLeaseMs: options.leaseMs }),
      ...(options.price === undefined
        ? {}
        : { pricing: { [modelName ?? model.defaultModelName ?? 'default']: options.price } }),
      policy,
      mcp,
    });
    let completed: Extract<AgentEvent, { type: 'session.completed' }> | undefined;
    let parked: Extract<AgentEvent, { type: 'session.parked' }> | undefined;
    for await (const event of start(agent, controller.signal)) {
      if (event.type !== 'model.delta') events.push(event);
      if (event.type === 'session.completed') completed = event;
      if (event.type === 'session.parked') parked = event;
      printer.show(event);
    }
    const refused = refusedCalls(events);
    // a script that could not answer an approval learns it from the exit code (docs/cli.md);
    // a parked run is no failure: it did what --park asked (--json says status 'parked'); a
    // connection refused on purpose (--deny, --default deny) is the user's choice, not a failure
    const failing = refused.filter((r) => r.server === undefined || !isChosenRefusal(r.code));
    const code = !ctx.io.interactive && failing.length > 0 ? EXIT_CODES.denied : EXIT_CODES.ok;
    if (parked && completed === undefined) {
      if (out.options.json)
        out.json({
          sessionId: parked.sessionId,
          status: 'parked',
          waits: parked.waits,
          resume: `muster sessions resume ${parked.sessionId}${storeSuffix}`,
          refusedCalls: refused,
          events: events.map(jsonEvent),
        });
      return code;
    }
    if (out.options.json) {
      out.json({
        sessionId: printer.sessionId,
        status: 'completed',
        text: completed?.content ?? '',
        ...(completed?.output !== undefined ? { output: completed.output } : {}),
        usage: completed?.usage,
        refusedCalls: refused,
        events: events.map(jsonEvent),
      });
    } else if (typed) {
      out.json(completed?.output ?? null);
    }
    if (!out.options.json && failing.length > 0 && !ctx.io.interactive) {
      out.notice(
        `${failing.length} tool call(s) or server connection(s) refused without a person to ask: allow them with --allow <pattern> (--allow mcp_connect:<server> for a server) or --default allow.`,
      );
    }
    return code;
  } catch (err) {
    printer.endLine();
    const error = MusterError.isInstance(err)
      ? err
      : toMusterError(err, 'INTERNAL_ERROR', 'The run failed unexpectedly');
    const sessionId = printer.sessionId;
    // the run's only output option is --output-schema: a schema that does not compile names it
    const message = out.cliMessage(
      error,
      typed
        ? error.message.replace(/^output\.schema\b/, `--output-schema ${answer.outputSchemaFile}`)
        : error.message,
    );
    if (out.options.json) {
      out.json({
        sessionId,
        status: 'failed',
        error: { ...jsonError(error), message },
        refusedCalls: refusedCalls(events),
        events: events.map(jsonEvent),
      });
    }
    out.errorLine(error.code, message);
    if (error.code === 'OUTPUT_INVALID' && typed)
      out.notice(
        `The answer does not match the schema of --output-schema ${answer.outputSchemaFile}: loosen the schema or use a model with structured output.`,
      );
    if (sessionId !== undefined && error.code !== 'SESSION_NOT_FOUND')
      out.notice(`The session is kept: muster sessions show ${sessionId}`);
    return exitCodeOf(error.code);
  } finally {
    process.off('SIGINT', interrupt);
    await agent?.close().catch(() => undefined);
    await opened.close().catch(() => undefined);
  }
}

/** What the policy refused in a run, in order. */
interface Refused {
  /** The tool, or `mcp_connect:<server>` for a server connection. */
  readonly toolName: string;
  /** The server, for a refused connection. */
  readonly server?: string;
  readonly code: string;
}

/**
 * The calls and server connections the policy refused in a run (denied, or needing an
 * approval nobody could give). A refused connection is a `mcp.server.status` event whose
 * error has a policy code; each server counts once.
 */
function refusedCalls(events: readonly AgentEvent[]): Refused[] {
  const servers = new Set<string>();
  return events.flatMap((e): Refused[] => {
    if (e.type === 'tool.completed')
      return isRefusal(e.errorCode) ? [{ toolName: e.toolName, code: e.errorCode! }] : [];
    if (e.type !== 'mcp.server.status' || !isRefusal(e.error?.code) || servers.has(e.server))
      return [];
    servers.add(e.server);
    return [{ toolName: `mcp_connect:${e.server}`, server: e.server, code: e.error!.code }];
  });
}

function isRefusal(code: string | undefined): boolean {
  return code === 'TOOL_DENIED' || code === 'TOOL_APPROVAL_REQUIRED';
}

/**
 * Whether a refusal was somebody's decision (`TOOL_DENIED`: `--deny`, `--default deny`, Deny
 * at a prompt), not an approval nobody could give (`TOOL_APPROVAL_REQUIRED`).
 */
function isChosenRefusal(code: string): boolean {
  return code === 'TOOL_DENIED';
}

/**
 * A run's failure as JSON: `{ code, message }`, with the `details` of `OUTPUT_INVALID`
 * (`reason`, `issues`, `repairs`) so a script can show what was wrong with the answer.
 */
function jsonError(error: MusterError): { code: string; message: string; details?: unknown } {
  return {
    code: error.code,
    message: error.message,
    ...(error.code === 'OUTPUT_INVALID' ? { details: error.details } : {}),
  };
}

/** An event as JSON: errors as `{ code, message }`. */
function jsonEvent(event: AgentEvent): unknown {
  if (event.type === 'session.failed')
    return { ...event, error: { code: event.error.code, message: event.error.message } };
  return event;
}
