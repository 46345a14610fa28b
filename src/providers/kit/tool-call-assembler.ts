import { ModelError } from '../../errors/index.js';
import type { ModelPart } from '../../model/index.js';

/** One fragment of a streamed tool call: id and name usually come first, arguments after. */
export interface ToolCallFragment {
  readonly id?: string | null;
  readonly name?: string | null;
  readonly argumentsText?: string | null;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** Assembles tool calls streamed in fragments keyed by an index. */
export class ToolCallAssembler {
  readonly #calls = new Map<number, PendingCall>();

  /** True once any tool call fragment arrived. */
  get hasCalls(): boolean {
    return this.#calls.size > 0;
  }

  /**
   * Adds a fragment that carries no index, as some OpenAI-compatible servers send them: one
   * with an id or a name that differs from the last call's opens a new call; any other
   * continues the last call.
   */
  addUnindexed(fragment: ToolCallFragment): void {
    const lastIndex = this.#calls.size - 1;
    const last = this.#calls.get(lastIndex);
    const opensCall =
      !last || (fragment.id ? fragment.id !== last.id : Boolean(fragment.name) && last.args !== '');
    this.add(opensCall ? lastIndex + 1 : lastIndex, fragment);
  }

  /** Adds one fragment of the call at `index`. */
  add(index: number, fragment: ToolCallFragment): void {
    let call = this.#calls.get(index);
    if (!call) {
      call = { id: '', name: '', args: '' };
      this.#calls.set(index, call);
    }
    if (fragment.id) call.id = fragment.id;
    if (fragment.name) call.name = fragment.name;
    if (fragment.argumentsText) call.args += fragment.argumentsText;
  }

  /**
   * The finished calls as `tool-call` parts, in index order. A call without a name is an
   * invalid (retryable) response; a call without an id gets `call_<index>`.
   */
  parts(provider: string): ModelPart[] {
    const sorted = [...this.#calls.entries()].sort(([a], [b]) => a - b);
    return sorted.map(([index, call]) => {
      if (!call.name) {
        throw new ModelError(
          'MODEL_RESPONSE_INVALID',
          `The ${provider} stream sent tool call ${index} without a function name; retry the request.`,
          { isRetryable: true, details: { provider, toolCallIndex: index } },
        );
      }
      return {
        type: 'tool-call',
        callId: call.id || `call_${index}`,
        name: call.name,
        argumentsText: call.args,
      };
    });
  }
}
