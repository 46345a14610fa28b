/**
 * The provider kit: vendor-neutral pieces every provider builds on. Nothing here imports a
 * vendor package. Internal to the package; providers import it, the package root does not.
 */

// The client shell.
export { providerModel } from './provider-model.js';
export type { ProviderModelSpec } from './provider-model.js';
export { resolveModelName } from './model-name.js';

// Requests.
export { mergeProviderOptions, refuseOutputOverrides } from './provider-options.js';
export { writeTranscript, toolMediaCaption } from './tool-media.js';
export type { TranscriptWriter } from './tool-media.js';
export { imageUrl } from './image-url.js';
export { assertNoImages, countImages } from './image-check.js';
export { toolCallArgumentsText, toolCallInput } from './tool-call-arguments.js';
export { THINKING_BUDGET } from './thinking-budget.js';

// Responses.
export { ToolCallAssembler } from './tool-call-assembler.js';
export type { ToolCallFragment } from './tool-call-assembler.js';
export { toUsage } from './usage.js';
export type { ReportedUsage } from './usage.js';

// Failures.
export {
  truncatedStreamError,
  streamEndedEarlyError,
  isRetryableStatus,
  isRetryableErrorType,
  statusAdvice,
  sentence,
  withCause,
} from './errors.js';
export {
  keyRedactedCause,
  requestTimedOut,
  apiUnreachable,
  requestFailed,
} from './client-failures.js';
