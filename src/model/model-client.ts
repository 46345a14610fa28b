import type { ModelClientV1 } from './v1/index.js';

/** The current model boundary: the version the agent loop speaks today. */
export type ModelClient = ModelClientV1;
