import type { ToolErrorCode } from '../errors/index.js';
import type { DecidedBy } from './tool-call-types.js';

/**
 * Why a stage of the call pipeline stopped the call: the error code and message the model reads,
 * and whether the tool had already run.
 */
export interface Refusal {
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly executed: boolean;
  /** Set when a decision taken on a wait refused the call. */
  readonly decidedBy?: DecidedBy;
}

/** What a stage of the call pipeline returns: its value, or why the call stops there. */
export type StageResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly refusal: Refusal };

/** A stage that let the call through with `value`. */
export function pass<T>(value: T): StageResult<T> {
  return { ok: true, value };
}

/** A stage that stopped the call. `executed` says whether the tool had run (default false). */
export function refuse<T = never>(
  code: ToolErrorCode,
  message: string,
  executed = false,
): StageResult<T> {
  return { ok: false, refusal: { code, message, executed } };
}

/** The message of a failure, for error results the model reads. */
export function describeFailure(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
