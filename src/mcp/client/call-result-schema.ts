import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';

// Why this exists: `Client.callTool()` sends through `request()` without a result schema, and
// `request()` then builds one per call with `codecResultValidator`, which learns whether the
// method has a result schema by validating `undefined` against it and formatting the failure
// (docs/performance.md, "Proposals for the official client", 1). `request()` with an explicit
// schema skips that. The schema below is the same check the client would build: its own
// negotiated codec's `validateResult('tools/call', …)`, built once per codec instead of per call.

/** The part of the client's wire codec this module uses (`WireCodec.validateResult`). */
interface ResultCodec {
  validateResult(
    method: string,
    raw: unknown,
  ):
    | { readonly ok: true; readonly value: unknown }
    | { readonly ok: false; readonly reason: string; readonly message?: string };
}

/** The protected accessor `Protocol` keeps for its role classes: the negotiated era's codec. */
interface CodecAccess {
  _wireCodec?: () => ResultCodec | undefined;
}

const METHOD = 'tools/call';
const built = new WeakMap<ResultCodec, StandardSchemaV1<unknown, unknown>>();

/**
 * The `tools/call` result schema of `client`'s negotiated era, as the client itself would
 * build it for `request()` (the same codec, the same outcome and message), made once per codec.
 * Undefined when the client has no codec accessor (another client version): the client then
 * builds its own, per call, as before.
 */
export function toolResultSchema(client: Client): StandardSchemaV1<unknown, unknown> | undefined {
  const access = (client as unknown as CodecAccess)._wireCodec;
  if (typeof access !== 'function') return undefined;
  const codec = access.call(client);
  if (typeof codec?.validateResult !== 'function') return undefined;
  let schema = built.get(codec);
  if (!schema) {
    schema = {
      '~standard': {
        version: 1,
        vendor: 'muster',
        validate(value: unknown) {
          const outcome = codec.validateResult(METHOD, value);
          if (outcome.ok) return { value: outcome.value };
          // as the client's own: the codec's message as it is
          const message =
            outcome.reason === 'invalid' ? (outcome.message as string) : `not-in-era: ${METHOD}`;
          return { issues: [{ message }] };
        },
      },
    };
    built.set(codec, schema);
  }
  return schema;
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
 * `Base` (the official `Client` class) with one change: a `tools/call` request sent without a
 * result schema (as `callTool()` sends it) gets {@link toolResultSchema}, so `request()` does
 * not build one per call. Everything else `callTool()` does (header mirroring, its retry after
 * a header mismatch, the output check it is configured for) stays its own. One subclass per
 * base class.
 */
export function resultSchemaOnce(Base: typeof Client): typeof Client {
  const known = subclasses.get(Base);
  if (known) return known;
  class ResultSchemaOnce extends Base {
    /** `request()`, with the built schema for a `tools/call` sent without one. */
    override request(...args: unknown[]): never {
      const [request, second] = args as [{ readonly method?: unknown } | undefined, unknown];
      const send = super.request as (...a: unknown[]) => never;
      if (request?.method !== METHOD || isSchema(second)) return send.apply(this, args);
      const schema = toolResultSchema(this);
      return schema ? send.call(this, request, schema, second) : send.apply(this, args);
    }
  }
  subclasses.set(Base, ResultSchemaOnce);
  return ResultSchemaOnce;
}
