export { utf8Bytes } from './bytes.js';
export { newId } from './ids.js';
export { raceAbort } from './abort.js';
export { callIsolated } from './isolate.js';
export type { EventBase } from './event-base.js';
export { redact, SecretRegistry, MIN_SECRET_LENGTH } from './redact.js';
