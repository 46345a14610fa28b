import type { MusterError } from '../../errors/index.js';
import { abortedError } from '../../errors/index.js';
import type { ModelClientV1, ModelPart, ModelRequest } from '../../model/index.js';
import { assertNoImages } from './image-check.js';
import { resolveModelName } from './model-name.js';

/** What differs between providers built with {@link providerModel}. */
export interface ProviderModelSpec<Client> {
  /** The provider label, such as `openai.chat`. */
  readonly provider: string;
  /** The model used when neither the agent nor the run names one. */
  readonly defaultModelName?: string | undefined;
  /** False for a model that reads no images: requests with images fail before any I/O. */
  readonly images?: boolean | undefined;
  /** Returns the vendor client, building it on first use (a missing key fails here). */
  readonly client: () => Client;
  /** One model turn on a ready client. */
  readonly turn: (
    client: Client,
    request: ModelRequest,
    modelName: string,
    signal: AbortSignal,
  ) => AsyncIterable<ModelPart>;
  /** Maps anything the turn threw to a Muster error that carries no secret. */
  readonly failure: (err: unknown, signal: AbortSignal, client: Client) => MusterError;
}

/**
 * A `ModelClientV1` around one vendor API: refuses an already-aborted signal (and images, for
 * a model without image support) before any I/O,
 * gets the client lazily, resolves the model name, and maps every failure of the turn.
 */
export function providerModel<Client>(spec: ProviderModelSpec<Client>): ModelClientV1 {
  const { provider } = spec;
  return {
    specificationVersion: 'muster-model-v1',
    provider,
    ...(spec.defaultModelName ? { defaultModelName: spec.defaultModelName } : {}),
    ...(spec.images === false ? { capabilities: { images: false } } : {}),
    async *generate(request, { signal }) {
      if (signal.aborted) throw abortedError(`The ${provider} request`, signal.reason);
      if (spec.images === false) assertNoImages(request, provider);
      const client = spec.client();
      const modelName = resolveModelName(request.modelName, spec.defaultModelName);
      try {
        yield* spec.turn(client, request, modelName, signal);
      } catch (err) {
        throw spec.failure(err, signal, client);
      }
    },
  };
}
