import { MIN_SECRET_LENGTH } from '../../util/index.js';
import type { McpServerConfig } from '../contracts/config-types.js';

/** Every value in a declaration that may be a secret: header values, env values, tokens, URL userinfo and query. */
export function secretsOf(config: McpServerConfig): string[] {
  const out: string[] = [];
  if (config.type === 'sdk') return out;
  if (config.type === 'http' || config.type === 'sse') {
    for (const value of Object.values(config.headers ?? {})) {
      out.push(value);
      const credential = /^\s*\S+\s+(\S.*)$/.exec(value)?.[1];
      if (credential) out.push(credential);
    }
    if (config.type === 'http' && config.auth?.type === 'bearer') out.push(config.auth.token);
    try {
      const url = new URL(config.url);
      if (url.password) out.push(url.password, decodeURIComponent(url.password));
      if (url.username) out.push(url.username, decodeURIComponent(url.username));
      for (const v of url.searchParams.values()) out.push(v, encodeURIComponent(v));
      for (const raw of url.search.slice(1).split('&')) {
        const value = raw.split('=')[1];
        if (value) out.push(value);
      }
    } catch {
      // an unparseable URL is refused elsewhere
    }
  } else {
    out.push(...Object.values(config.env ?? {}));
  }
  return out.filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH);
}
