import type { ModelCallOptions } from './model-call-options.js';
import type { ModelPart } from './model-part.js';
import type { ModelRequest } from './model-request.js';

/** What a model accepts besides text. */
export interface ModelCapabilities {
  /** Whether the model reads images; absent means it does. */
  readonly images?: boolean;
}

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
  /**
   * What the model accepts besides text. `images: false` means image parts (user input or
   * tool results) are refused with `INVALID_CONFIGURATION` before any request is sent.
   * Absent means images are accepted.
   */
  readonly capabilities?: ModelCapabilities;
  /** Streams one model turn. */
  generate(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelPart>;
}
