import type { AgentEvent } from '../agent/index.js';
import type { McpServerDiagnostics } from '../mcp/index.js';
import { inCliTerms } from './cli-terms.js';
import type { Output } from './output.js';
import { endedServerStderr, stderrLines } from './server-stderr.js';
import { truncate } from './truncate.js';
import { parkedLines } from './wait-table.js';

/** What {@link RunPrinter} shows besides the events on stderr. */
export interface RunPrinterOptions {
  /**
   * Stream the model's text on stdout (default true). False for a run with a typed answer
   * (`--output-schema`), whose stdout gets only the value once it is validated.
   */
  readonly streamText?: boolean;
  /**
   * Appended to the `muster decide` and `muster sessions resume` lines a parked run prints
   * (` --store <url>` when the run used `--store`).
   */
  readonly commandSuffix?: string;
  /**
   * The agent's `mcp.diagnostics(name)`: a stdio server that failed because its process
   * ended has the redacted tail of its stderr printed under its status line.
   */
  readonly diagnose?: (server: string) => McpServerDiagnostics;
}

/**
 * Shows a run as it happens: model text streams on stdout as it arrives (deltas, no extra
 * line breaks within a turn; a blank line between the text of one model turn and the next);
 * tool calls, progress, decisions and failures are lines on stderr, so stdout holds only the
 * answer when piped. A run that parks ends with its waits, the `muster decide` line of each
 * and the `muster sessions resume` line. With `--json` nothing is shown until the end.
 */
export class RunPrinter {
  #midLine = false;
  /** The last two characters written on stdout: how many line breaks a new turn still needs. */
  #tail = '';
  /** This model turn has written text. */
  #turnText = false;
  /** An earlier turn wrote text: the next turn's text starts after a blank line. */
  #textBefore = false;
  #sessionId: string | undefined;
  /** `server status` already shown, so a repeated status prints once. */
  readonly #shownStatus = new Set<string>();

  constructor(
    private readonly out: Output,
    private readonly options: RunPrinterOptions = {},
  ) {}

  /** The session the run belongs to (from its first event). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Shows one event. */
  show(event: AgentEvent): void {
    this.#sessionId ??= event.sessionId;
    if (this.out.options.json) return;
    switch (event.type) {
      case 'session.started':
        this.#note(
          this.out.paint(
            'dim',
            `session ${event.sessionId}${event.continued ? ' (continued)' : ''}`,
          ),
        );
        return;
      case 'model.delta':
        if (event.kind !== 'text' || event.content === '' || this.options.streamText === false)
          return;
        if (this.#textBefore && !this.#turnText) this.#write('\n'.repeat(2 - newlines(this.#tail)));
        this.#write(event.content);
        this.#turnText = true;
        return;
      case 'model.completed':
        if (this.#turnText) this.#textBefore = true;
        this.#turnText = false;
        return;
      case 'tool.approval.requested':
        this.#note(
          this.out.paint('yellow', `? approval needed: ${call(event.toolName, event.arguments)}`),
        );
        return;
      case 'tool.decision':
        if (event.decision !== 'allow' || event.stage === 'approval')
          this.#note(
            this.out.paint(
              event.decision === 'allow' ? 'green' : 'yellow',
              `  ${event.decision} ${event.toolName} (${event.stage}${event.reason ? `: ${inCliTerms(event.reason)}` : ''})`,
            ),
          );
        return;
      case 'tool.called':
        this.#note(this.out.paint('cyan', `> ${call(event.toolName, event.arguments)}`));
        return;
      case 'tool.progress': {
        const total = event.total === undefined ? '' : `/${event.total}`;
        const message = event.message ? ` ${event.message}` : '';
        this.#note(
          this.out.paint('dim', `  … ${event.toolName} ${event.progress}${total}${message}`),
        );
        return;
      }
      case 'tool.task': {
        // a call the server made a task of (SPEC 15.3): its status as the server reports it
        const message = event.statusMessage ? ` ${event.statusMessage}` : '';
        this.#note(
          this.out.paint(
            'dim',
            `  … ${event.toolName} task ${event.taskId}: ${event.status}${message}`,
          ),
        );
        return;
      }
      case 'tool.completed': {
        const head = event.isError
          ? `x ${event.toolName} [${event.errorCode ?? 'error'}]`
          : `< ${event.toolName}`;
        this.#note(
          this.out.paint(
            event.isError ? 'red' : 'green',
            `${head}: ${truncate(event.isError ? inCliTerms(event.content) : event.content, 200)}`,
          ),
        );
        return;
      }
      case 'mcp.server.status':
        this.#serverStatus(event);
        return;
      case 'elicitation.requested':
        this.#note(this.out.paint('yellow', `? ${event.server} asks for input`));
        return;
      case 'budget.warning':
        this.#note(this.out.paint('yellow', `! ${budgetLine(event, 'is 80 % spent')}`));
        return;
      case 'budget.exhausted':
        this.#note(
          this.out.paint(
            'yellow',
            `! ${budgetLine(event, event.onBudgetExhausted === 'finish' ? 'is spent: one last answer, without tools' : 'is spent')}`,
          ),
        );
        return;
      case 'session.completed':
        this.endLine();
        // an event built by hand (a replay, a test) may carry no usage
        if ((event.usage as Partial<typeof event.usage> | undefined)?.costUsd !== undefined)
          this.#note(this.out.paint('dim', `cost $${event.usage.costUsd}`));
        return;
      case 'session.parked':
        this.endLine();
        for (const line of parkedLines(event.sessionId, event.waits, this.options.commandSuffix))
          this.#note(this.out.paint('yellow', line));
        return;
      default:
        return;
    }
  }

  /** Ends a line of streamed text before anything else is printed. */
  endLine(): void {
    if (this.#midLine) this.#write('\n');
  }

  /** Writes model text on stdout, remembering how it ends. */
  #write(text: string): void {
    if (text === '') return;
    this.out.io.stdout.write(text);
    this.#tail = (this.#tail + text).slice(-2);
    this.#midLine = !text.endsWith('\n');
  }

  /** A server that will not be used says so, with what to do about it. */
  #serverStatus(event: Extract<AgentEvent, { type: 'mcp.server.status' }>): void {
    if (event.status !== 'disabled' && event.status !== 'failed' && event.status !== 'needs-auth')
      return;
    const key = `${event.server} ${event.status} ${event.error?.code ?? ''}`;
    if (this.#shownStatus.has(key)) return;
    this.#shownStatus.add(key);
    const code = event.error?.code;
    const why = event.error ? ` [${event.error.code}]: ${inCliTerms(event.error.message)}` : '';
    let hint = '';
    if (code === 'TOOL_APPROVAL_REQUIRED')
      hint = ` Allow it with --allow mcp_connect:${event.server} (or run on a terminal to be asked).`;
    else if (event.status === 'needs-auth' || code === 'MCP_AUTH_REQUIRED')
      hint = ` Sign in with: muster mcp auth ${event.server}`;
    this.#note(this.out.paint('yellow', `! server ${event.server} ${event.status}${why}${hint}`));
    const stderr =
      event.status === 'failed' && this.options.diagnose
        ? endedServerStderr(event.server, this.options.diagnose)
        : undefined;
    if (stderr) for (const line of stderrLines(stderr)) this.#note(this.out.paint('dim', line));
  }

  #note(text: string): void {
    // on a terminal both streams share the screen: end the model's line first
    if (this.out.io.interactive) this.endLine();
    this.out.io.stderr.write(`${text}\n`);
  }
}

/** How many line breaks `tail` ends with (0, 1 or 2). */
function newlines(tail: string): number {
  return tail.length - tail.replace(/\n+$/, '').length;
}

function call(name: string, args: unknown): string {
  return `${name} ${truncate(JSON.stringify(args ?? {}), 200)}`;
}

/** A budget event in a line: which limit, what was spent of it. */
function budgetLine(
  event: Extract<AgentEvent, { type: 'budget.warning' | 'budget.exhausted' }>,
  what: string,
): string {
  const amount = (n: number) => (event.limit === 'maxCostUsd' ? `$${n}` : String(n));
  const name = event.limit === 'maxCostUsd' ? '--max-cost' : `limits.${event.limit}`;
  return `budget ${name} ${what} (${amount(event.spent)} of ${amount(event.max)})`;
}
