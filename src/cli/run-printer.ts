import type { AgentEvent } from '../agent/index.js';
import type { Output } from './output.js';

/**
 * Shows a run as it happens: model text streams on stdout as it arrives (deltas, no extra
 * line breaks); tool calls, progress, decisions and failures are lines on stderr, so stdout
 * holds only the answer when piped. With `--json` nothing is shown until the end.
 */
export class RunPrinter {
  #midLine = false;
  #sessionId: string | undefined;

  constructor(private readonly out: Output) {}

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
        if (event.kind !== 'text' || event.content === '') return;
        this.out.io.stdout.write(event.content);
        this.#midLine = !event.content.endsWith('\n');
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
              `  ${event.decision} ${event.toolName} (${event.stage}${event.reason ? `: ${event.reason}` : ''})`,
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
      case 'tool.completed': {
        const head = event.isError
          ? `x ${event.toolName} [${event.errorCode ?? 'error'}]`
          : `< ${event.toolName}`;
        this.#note(
          this.out.paint(
            event.isError ? 'red' : 'green',
            `${head}: ${truncate(event.content, 200)}`,
          ),
        );
        return;
      }
      case 'elicitation.requested':
        this.#note(this.out.paint('yellow', `? ${event.server} asks for input`));
        return;
      case 'session.completed':
        if (this.#midLine) this.out.io.stdout.write('\n');
        this.#midLine = false;
        return;
      default:
        return;
    }
  }

  /** Ends a line of streamed text before anything else is printed. */
  endLine(): void {
    if (this.#midLine) this.out.io.stdout.write('\n');
    this.#midLine = false;
  }

  #note(text: string): void {
    // on a terminal both streams share the screen: end the model's line first
    if (this.out.io.interactive) this.endLine();
    this.out.io.stderr.write(`${text}\n`);
  }
}

function call(name: string, args: unknown): string {
  return `${name} ${truncate(JSON.stringify(args ?? {}), 200)}`;
}

/** `text` cut to `max` characters with a marker. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${flat.length - max} more)`;
}
