import { toMusterError } from '../../errors/index.js';
import type { StopReason, Usage } from '../../model/index.js';
import type { TraceAttributes, TraceContext, TraceSpan, Tracer } from '../../util/index.js';
import type { TurnAttempts } from '../model-turn.js';
import {
  failSpan,
  finishReason,
  outputMessages,
  SPAN_KIND,
  usageAttributes,
} from './tracing-attributes.js';

/** What the trace reads of a finished model turn. */
export interface TracedTurn {
  readonly text: string;
  readonly calls: readonly {
    readonly callId: string;
    readonly name: string;
    readonly arguments: unknown;
  }[];
  readonly stopReason: StopReason;
  readonly usage?: Usage | undefined;
  readonly error?: { readonly code: string } | undefined;
}

/** What a run's chat spans are made with. */
export interface ChatSpansSetup {
  readonly tracer: Tracer;
  /** The context holding the run span: the parent of every chat span. */
  readonly parent: TraceContext;
  /** The attributes every chat span of the run has (provider, model, conversation). */
  readonly attributes: TraceAttributes;
  readonly modelName: string;
  /** Record each turn's output (`observability.traceContent`). */
  readonly content: boolean;
  /** Runs `fn` with `span` as the active context, under the run span. */
  readonly within: <T>(span: TraceSpan, fn: () => T) => T;
}

/** The `chat <model>` client spans of one run: one per model turn attempt. */
export class ChatSpans {
  readonly #setup: ChatSpansSetup;

  constructor(setup: ChatSpansSetup) {
    this.#setup = setup;
  }

  /**
   * One model turn, the active context while `take` runs. The first span covers the request's
   * preparation and the first attempt; a retry (after its wait, which no span covers) gets its
   * own through the `attempts` `take` is given, and a retried attempt ends with its code. A
   * throw of `take` (a context limit, a summarizer) ends the span with the thrown code.
   */
  async turn<T extends TracedTurn>(
    iteration: number,
    stream: boolean,
    take: (attempts: TurnAttempts) => Promise<T>,
  ): Promise<T> {
    const first = this.#start(iteration, stream);
    const open: { span: TraceSpan | undefined } = { span: first };
    const attempts: TurnAttempts = {
      failed: (attempt, error) => {
        if (!open.span) return;
        open.span.setAttribute('muster.model.attempt', attempt);
        failSpan(open.span, error.code);
        open.span = undefined;
      },
      retry: (attempt, run) => {
        const span = this.#start(iteration, stream, attempt);
        open.span = span;
        return this.#setup.within(span, run);
      },
    };
    let turn: T | undefined;
    let thrown: string | undefined;
    try {
      turn = await this.#setup.within(first, () => take(attempts));
      return turn;
    } catch (err) {
      thrown = toMusterError(err, 'INTERNAL_ERROR', 'The model turn failed').code;
      throw err;
    } finally {
      if (open.span) this.#end(open.span, turn, thrown);
    }
  }

  #start(iteration: number, stream: boolean, attempt?: number): TraceSpan {
    const setup = this.#setup;
    return setup.tracer.startSpan(
      `chat ${setup.modelName}`,
      {
        kind: SPAN_KIND.client,
        attributes: {
          'gen_ai.operation.name': 'chat',
          ...setup.attributes,
          'gen_ai.request.stream': stream,
          'muster.iteration': iteration,
          'muster.model.attempt': attempt,
        },
      },
      setup.parent,
    );
  }

  #end(span: TraceSpan, turn: TracedTurn | undefined, thrown: string | undefined): void {
    if (turn) {
      span.setAttributes({
        'gen_ai.response.finish_reasons': [finishReason(turn.stopReason)],
        ...usageAttributes(turn.usage),
      });
      if (this.#setup.content && !turn.error)
        span.setAttribute(
          'gen_ai.output.messages',
          outputMessages(turn.text, turn.calls, turn.stopReason),
        );
    }
    const code = turn ? turn.error?.code : (thrown ?? 'INTERNAL_ERROR');
    if (code) failSpan(span, code);
    else span.end();
  }
}
