import { findInCauseChain } from './cause-chain.js';

/**
 * What a network error says about a request, on its typed `code` (and `syscall`) only:
 * - `not-sent`: the connection could not be made (refused, no such host, the server's
 *   certificate refused, a TLS handshake that failed), so no byte of the request left;
 * - `lost`: the connection broke after it was made (a reset, a socket closed mid-answer),
 *   so the request may have reached the server.
 */
export interface NetworkFact {
  readonly kind: 'not-sent' | 'lost';
  /** The errno or undici code that says so, such as `ECONNREFUSED` or `ECONNRESET`. */
  readonly code: string;
}

/** Failures that can only happen before a connection exists, whatever the syscall says. */
const CONNECT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  // undici's own connect timeout: the socket never connected
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Server certificate checks and handshake failures: undici writes a request only after the
 * secure connection is established, so none of these can follow a sent request. Alerts about
 * the client's own certificate are left out: under TLS 1.3 they may arrive after it wrote.
 */
const TLS_HANDSHAKE_CODES: ReadonlySet<string> = new Set([
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** The syscalls of making a connection: an error raised by one of them came before any write. */
const CONNECT_SYSCALLS: ReadonlySet<string> = new Set(['connect', 'getaddrinfo']);

/** Breaks of a connection that existed: the request may have been written, even answered in part. */
const LOST_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** How deep `AggregateError`s inside each other are read (Node nests them one level). */
const MAX_AGGREGATE_DEPTH = 4;

function factOfOne(e: unknown, depth = 0): NetworkFact | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, syscall, errors } = e as { code?: unknown; syscall?: unknown; errors?: unknown };
  if (Array.isArray(errors) && errors.length > 0 && depth < MAX_AGGREGATE_DEPTH) {
    // several addresses tried (happy eyeballs): not sent only when no attempt connected
    const facts = errors.map((inner) => factOfOne(inner, depth + 1));
    if (facts.every((f) => f?.kind === 'not-sent')) return facts[0];
    if (facts.some((f) => f?.kind === 'lost')) return facts.find((f) => f?.kind === 'lost');
  }
  if (typeof code !== 'string') return undefined;
  if (CONNECT_CODES.has(code) || TLS_HANDSHAKE_CODES.has(code)) return { kind: 'not-sent', code };
  // the same errno (a reset, a timeout) means "never connected" only when connecting raised it
  if (typeof syscall === 'string' && CONNECT_SYSCALLS.has(syscall) && /^E[A-Z]+$/.test(code))
    return { kind: 'not-sent', code };
  if (LOST_CODES.has(code)) return { kind: 'lost', code };
  return undefined;
}

/**
 * The {@link NetworkFact} of the first network error in `err`'s cause chain (Node's `fetch`
 * rejects with a `TypeError` whose `cause` carries the errno), or undefined when the chain
 * holds none that Muster recognizes. Unrecognized codes are never guessed at: a caller treats
 * them as an unknown outcome.
 */
export function networkFactOf(err: unknown): NetworkFact | undefined {
  return findInCauseChain(err, (e) => factOfOne(e));
}
