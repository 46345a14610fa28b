import type { ServerDeclaration } from './config-sources.js';
import { checkHeaders, checkServerUrl } from './transports/url-policy.js';

/**
 * Checks the URL and headers of an http or sse declaration at configuration time, so a bad
 * declaration fails when the agent is created, not when it connects.
 */
export function checkRemoteDeclaration(d: ServerDeclaration): void {
  const c = d.config;
  if (c.type !== 'http' && c.type !== 'sse') return;
  checkServerUrl(d.name, c.url);
  if (c.headers) checkHeaders(d.name, c.headers);
}
