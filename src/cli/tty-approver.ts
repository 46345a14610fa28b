import type { ApprovalAnswer, AuthorizationRequest, AuthorizationRule } from '../policy/index.js';
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
