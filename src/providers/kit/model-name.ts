import { ModelError } from '../../errors/index.js';

/** Picks the model name of a request, falling back to the provider's default. */
export function resolveModelName(requested: string, fallback: string | undefined): string {
  const name = requested || fallback;
  if (!name) {
    throw new ModelError(
      'MODEL_REQUEST_FAILED',
      'No model name: pass modelName to the provider, the agent or the run',
      { isRetryable: false },
    );
  }
  return name;
}
