/**
 * The key of a policy's synchronous decision, taken when it needs nothing asynchronous (see
 * `CallPolicy`). A symbol, not a method name: it is the tool-call pipeline's, not a user's API.
 */
export const DECIDE_AT_ONCE: unique symbol = Symbol('muster.policy.decideAtOnce');
