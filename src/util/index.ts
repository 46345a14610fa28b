export { utf8Bytes } from './bytes.js';
export { newId } from './ids.js';
export { musterHome } from './muster-home.js';
export { missingPackages } from './installed-packages.js';
export { followAbort, raceAbort } from './abort.js';
export { callIsolated } from './isolate.js';
export type { EventBase } from './event-base.js';
export { redact, MIN_SECRET_LENGTH } from '../errors/index.js';
export { SecretRegistry } from './redact.js';
export { backoffDelay, resolveBackoff, sleepUnlessAborted } from './backoff.js';
export type { BackoffSettings, RetryOptions } from './backoff.js';
export { deepFreeze, isDeepFrozen } from './deep-freeze.js';
export { isoNow } from './iso-clock.js';
export type {
  TraceAttributes,
  TraceAttributeValue,
  TraceContext,
  TraceSpan,
  TraceSpanOptions,
  Tracer,
} from './tracing-types.js';
export { copyData } from './copy-data.js';
export { once } from './once.js';
export { isPromiseLike } from './promise-like.js';
export { isLoopbackHost, isSecureOrLoopback } from './loopback.js';
export { dataDepth, jsonText, jsonTextDepth, MAX_DATA_DEPTH } from './data-depth.js';
export {
  arrayOf,
  assertValid,
  checkedElsewhere,
  hasMethods,
  isBoolean,
  isFunction,
  isObject,
  isString,
  oneOf,
  oneOrMany,
  optional,
  shape,
} from './option-checks.js';
export type { Check } from './option-checks.js';
export { isPrincipalId, MAX_PRINCIPAL_CHARS } from './principal-id.js';
