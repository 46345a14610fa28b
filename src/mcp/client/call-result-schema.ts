import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';

// Why this exists: `Client.callTool()`, `listTools()`, `ping()` and the rest send through
// `request()` without a result schema, and `request()` then builds one per request with
// `codecResultValidator`, which learns whether the method has a result schema by validating
// `undefined` against it and formatting the failure (docs/performance.md, "Proposals for the
// official client", 1). `request()` with an explicit schema skips that. The schema below is the
// same check the client would build: the codec it resolves for the method, its
// `validateResult(method, …)`, built once per codec and method instead of per request.

/** The part of the client's wire codec this module uses (`WireCodec.validateResult`). */
interface ResultCodec {
  validateResult(
    method: string,
    raw: unknown,
  ):
    | { readonly ok: true; readonly value: unknown }
    | { readonly ok: false; readonly reason: string; readonly message?: string };
}

/**
 * The protected accessors `Protocol` keeps for its role classes: the codec `request()` resolves
 * for a method (the bootstrap codec of `initialize` before negotiation), and the negotiated one.
 */
interface CodecAccess {
  _resolveOutboundCodec?: (method: string) => ResultCodec | undefined;
  _wireCodec?: () => ResultCodec | undefined;
}

type ResultSchema = StandardSchemaV1<unknown, unknown>;

/** Per codec, per method: its schema, or `null` for a method without one in that era. */
const built = new WeakMap<ResultCodec, Map<string, ResultSchema | null>>();

/**
 * Methods sent as they are: `request()` skips its era check for them when given a schema, and
 * the tasks room brings its own schemas.
 */
const SENT_AS_THEY_ARE = new Set(['tasks/get', 'tasks/cancel']);

/** The codec `client.request()` would use for `method`, through its protected accessors. */
function codecOf(client: Client, method: string): ResultCodec | undefined {
  const access = client as unknown as CodecAccess;
  const codec =
    typeof access._resolveOutboundCodec === 'function'
      ? access._resolveOutboundCodec.call(client, method)
      : typeof access._wireCodec === 'function'
        ? access._wireCodec.call(client)
        : undefined;
  return typeof codec?.validateResult === 'function' ? codec : undefined;
}

/**
 * The result schema of `method` in `client`'s era, as the client itself would build it for
 * `request()` (the same codec, the same outcome and message), made once per codec and method.
 * Undefined for a method without one in that era (`request()` then refuses it as it would), and
 * when the client has no codec accessor (another client version): the client then builds its
 * own, per request, as before.
 */
export function resultSchemaFor(client: Client, method: string): ResultSchema | undefined {
  const codec = codecOf(client, method);
  if (!codec) return undefined;
  let byMethod = built.get(codec);
  if (!byMethod) {
    byMethod = new Map();
    built.set(codec, byMethod);
  }
  let schema = byMethod.get(method);
  if (schema === undefined) {
    // the client's own probe, made once: a method the era does not define has no schema
    const probe = codec.validateResult(method, undefined);
    schema = !probe.ok && probe.reason === 'not-in-era' ? null : codecSchema(codec, method);
    byMethod.set(method, schema);
  }
  return schema ?? undefined;
}

/** `codec.validateResult(method, …)` as a Standard Schema, as the client's own adapter. */
function codecSchema(codec: ResultCodec, method: string): ResultSchema {
  return {
    '~standard': {
      version: 1,
      vendor: 'muster',
      validate(value: unknown) {
        const outcome = codec.validateResult(method, value);
        if (outcome.ok) return { value: outcome.value };
        // as the client's own: the codec's message as it is
        const message =
          outcome.reason === 'invalid' ? (outcome.message as string) : `not-in-era: ${method}`;
        return { issues: [{ message }] };
      },
    },
  };
}

/** The `tools/call` result schema of `client`'s era (see {@link resultSchemaFor}). */
export function toolResultSchema(client: Client): ResultSchema | undefined {
  return resultSchemaFor(client, 'tools/call');
}

/**
 * True for a Standard Schema, as `request()` itself decides (an object or a function whose
 * `~standard.validate` is a function): what it takes as its second argument, if any.
 */
function isSchema(value: unknown): boolean {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const standard = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof standard?.validate === 'function';
}

const subclasses = new WeakMap<typeof Client, typeof Client>();

/**
 * `Base` (the official `Client` class) with one change: a request of a spec method sent
 * without a result schema (as `callTool()`, `listTools()` and `ping()` send theirs) gets
 * {@link resultSchemaFor}, so `request()` does not build one per request. Everything else those
 * methods do (header mirroring, the retry after a header mismatch, the output check they are
 * configured for) stays their own. One subclass per base class.
 */
export function resultSchemaOnce(Base: typeof Client): typeof Client {
  const known = subclasses.get(Base);
  if (known) return known;
  class ResultSchemaOnce extends Base {
    /** `request()`, with the built schema for a spec method sent without one. */
    override request(...args: unknown[]): never {
      const [request, second] = args as [{ readonly method?: unknown } | undefined, unknown];
      const send = super.request as (...a: unknown[]) => never;
      const method = request?.method;
      if (typeof method !== 'string' || SENT_AS_THEY_ARE.has(method) || isSchema(second))
        return send.apply(this, args);
      const schema = resultSchemaFor(this, method);
      return schema ? send.call(this, request, schema, second) : send.apply(this, args);
    }
  }
  subclasses.set(Base, ResultSchemaOnce);
  return ResultSchemaOnce;
}
