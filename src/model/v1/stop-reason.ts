/** Why a model turn ended. */
export type StopReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';
