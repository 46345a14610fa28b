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
    generate(request, { signal }) {
      return { [Symbol.asyncIterator]: () => turnIterator(spec, request, signal) };
    },
  };
}

/**
 * One turn's parts: the vendor turn's own iterator, with every failure of the turn mapped by
 * `spec.failure`. Written out rather than as an async generator delegating with `yield*`, so
 * a part costs the vendor turn's promise only, not a second generator step around it. The
 * checks before any I/O (abort, images, client, model name) fail on the first `next()`,
 * unmapped, as the generator's body did.
 */
function turnIterator<Client>(
  spec: ProviderModelSpec<Client>,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncIterator<ModelPart> {
  let inner: AsyncIterator<ModelPart> | undefined;
  let client: Client | undefined;
  let ended = false;
  const fail = (err: unknown): never => {
    ended = true;
    throw spec.failure(err, signal, client as Client);
  };
  const start = (): AsyncIterator<ModelPart> => {
    const { provider } = spec;
    if (signal.aborted) throw abortedError(`The ${provider} request`, signal.reason);
    if (spec.images === false) assertNoImages(request, provider);
    const c = spec.client();
    client = c;
    const modelName = resolveModelName(request.modelName, spec.defaultModelName);
    try {
      return spec.turn(c, request, modelName, signal)[Symbol.asyncIterator]();
    } catch (err) {
      return fail(err);
    }
  };
  return {
    next: () => {
      if (ended) return Promise.resolve({ done: true, value: undefined });
      if (inner === undefined) {
        try {
          inner = start();
        } catch (err) {
          ended = true;
          return Promise.reject(err);
        }
      }
      return inner.next().then(undefined, fail);
    },
    return: async (value?: unknown) => {
      ended = true;
      const it = inner;
      if (it?.return) await it.return(value).then(undefined, fail);
      return { done: true, value };
    },
  };
}
