import type { ModelCallOptions } from './model-call-options.js';
import type { ModelPart } from './model-part.js';
import type { ModelRequest } from './model-request.js';

/**
 * Version 1 of the model boundary. Providers implement it; the agent loop only speaks it.
 * `generate` streams one turn. Failures are thrown as `ModelError` (`MODEL_REQUEST_FAILED`
 * or `MODEL_RESPONSE_INVALID`) or `ABORTED` when the signal fired.
 */
export interface ModelClientV1 {
  readonly specificationVersion: 'muster-model-v1';
  /** A short provider label such as `openai.responses`, used in events and errors. */
  readonly provider: string;
  /** The model used when neither the agent nor the run names one. */
  readonly defaultModelName?: string;
  /** Streams one model turn. */
  generate(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelPart>;
}
