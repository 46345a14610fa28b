import type {
  ApprovalAnswer,
  AuthorizationRequest,
  AuthorizationRule,
  ConnectionSummary,
} from '../policy/index.js';
import type { CliIo } from './cli-io.js';

/** Where prompts read and write, and what to do when the person presses Ctrl-C in one. */
export interface PromptTarget {
  readonly io: CliIo;
  /** The stream prompts draw on (stderr with `--json`, so stdout stays one document). */
  readonly output: NodeJS.WritableStream;
  /** Called when Ctrl-C ends a prompt: the run is interrupted as by SIGINT. */
  readonly onInterrupt: () => void;
}

/**
 * Runs prompts one at a time: parallel tool calls may ask at once, but a terminal shows one
 * question at a time.
 */
export class PromptQueue {
  #tail: Promise<unknown> = Promise.resolve();

  constructor(readonly target: PromptTarget) {}

  /** Runs `ask` after every earlier prompt; Ctrl-C inside it interrupts the run. */
  run<T>(
    ask: (context: PromptContext) => Promise<T>,
    signal: AbortSignal,
    fallback: T,
  ): Promise<T> {
    const next = this.#tail.then(async () => {
      if (signal.aborted) return fallback;
      try {
        return await ask({ input: this.target.io.stdin, output: this.target.output, signal });
      } catch (err) {
        const name = (err as Error | undefined)?.name;
        if (name === 'ExitPromptError') this.target.onInterrupt();
        else if (name !== 'AbortPromptError') throw err;
        return fallback;
      }
    });
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

/** The context every inquirer prompt takes. */
export interface PromptContext {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly signal: AbortSignal;
}

type Choice = 'once' | 'always' | 'deny' | 'redirect';

/**
 * The interactive approval of a TTY run: each call that needs approval is asked with a
 * `select` (allow once / allow always for this session / deny / redirect with a message).
 * "Always" adds the tool to {@link SessionAllowances}, whose rule allows it from then on.
 */
export function ttyApprover(queue: PromptQueue, allowances: SessionAllowances) {
  return (request: AuthorizationRequest, signal: AbortSignal): Promise<ApprovalAnswer> =>
    queue.run<ApprovalAnswer>(
      async (context) => {
        // loaded only here, on the TTY path: the prompts need Node >= 20.17 (docs/cli.md)
        const { input, select } = await import('@inquirer/prompts');
        const what = describeRequest(request);
        // what a connection will run or reach, before the question (SPEC 5: names, not values)
        if (request.connection)
          context.output.write(connectionLines(request.server ?? '', request.connection));
        const choice = await select<Choice>(
          {
            message: `Allow ${what}?`,
            choices: [
              { name: 'Allow once', value: 'once' },
              { name: 'Allow always for this session', value: 'always' },
              { name: 'Deny', value: 'deny' },
              { name: 'Redirect with a message', value: 'redirect' },
            ],
          },
          context,
        );
        if (choice === 'once') return true;
        if (choice === 'always') {
          allowances.add(request.capability);
          return true;
        }
        if (choice === 'deny') return { decision: 'deny', reason: 'denied at the prompt' };
        const message = await input(
          { message: 'Message for the model instead:', required: true },
          context,
        );
        return { decision: 'redirect', message, reason: 'redirected at the prompt' };
      },
      signal,
      false,
    );
}

/** What is asked about, in one line: the tool and its exact arguments. */
function describeRequest(request: AuthorizationRequest): string {
  if (request.kind === 'connection') return `connecting to MCP server '${request.server ?? ''}'`;
  if (request.kind === 'sampling') return `'${request.server ?? ''}' to use the model (sampling)`;
  const args = request.arguments === undefined ? '' : ` ${JSON.stringify(request.arguments)}`;
  return `${request.toolName ?? request.capability}${args}`;
}

const SOURCES: Readonly<Record<string, string>> = {
  project: 'the project file',
  user: 'the user file',
  options: "the agent's options",
  runtime: 'a registration at run time',
};

/**
 * What a connection will run or reach, one fact per indented line, every value JSON-quoted
 * (a declaration cannot hide itself with terminal control characters). Names of env
 * variables and headers only, never their values.
 */
export function connectionLines(server: string, c: ConnectionSummary): string {
  const q = (v: unknown) => JSON.stringify(v);
  const from = SOURCES[c.configSource] ?? q(c.configSource);
  const lines = [`MCP server ${q(server)} (${c.transport}, from ${from}) asks to connect:`];
  if (c.sandbox)
    lines.push(`  inside the sandbox: ${q(c.sandbox.command)} ${q(c.sandbox.args ?? [])}`);
  if (c.command !== undefined) lines.push(`  command: ${q(c.command)}`);
  if (c.args !== undefined) lines.push(`  args: ${q(c.args)}`);
  if (c.cwd !== undefined) lines.push(`  cwd: ${q(c.cwd)}`);
  if (c.envKeys?.length) lines.push(`  env (names only): ${c.envKeys.map(q).join(', ')}`);
  if (c.url !== undefined) lines.push(`  url: ${q(c.url)}`);
  if (c.headerNames?.length)
    lines.push(`  headers (names only): ${c.headerNames.map(q).join(', ')}`);
  if (c.auth !== undefined) lines.push(`  auth: ${q(c.auth)}`);
  return `${lines.join('\n')}\n`;
}

/** The tools a person allowed "always for this session", as a policy rule. */
export class SessionAllowances {
  readonly #allowed = new Set<string>();

  /** Allows `capability` from now on. */
  add(capability: string): void {
    this.#allowed.add(capability);
  }

  /** The rule that allows what was added (it abstains on the rest). */
  rule(): AuthorizationRule {
    return {
      id: 'cli-allowed-always',
      authorize: (request) => (this.#allowed.has(request.capability) ? 'allow' : undefined),
    };
  }
}
