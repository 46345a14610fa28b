/**
 * The hosts that may use plain `http:` (SPEC 7.2), as `URL.hostname` spells them: exactly
 * `localhost`, `127.0.0.1` and `[::1]`. Other addresses of 127.0.0.0/8 are not among them
 * (`http://127.0.0.2/` is refused like any other plain-http host).
 */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True for `localhost`, `127.0.0.1` and `[::1]` only: the one loopback rule of MCP server
 * URLs, URL elicitations and OAuth (origins, redirect URIs, every request OAuth sends).
 */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/** True for `https:` URLs, and `http:` URLs on a loopback host ({@link isLoopbackHost}). */
export function isSecureOrLoopback(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}
