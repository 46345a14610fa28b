import type { ServerDeclaration } from './config-sources.js';
import { validateRemoteConfig } from '../transports/remote-config.js';

/**
 * Checks the URL, headers and auth of an http or sse declaration at configuration time, so a
 * bad declaration fails when the agent is created, not when it connects.
 */
export function checkRemoteDeclaration(d: ServerDeclaration): void {
  const c = d.config;
  if (c.type !== 'http' && c.type !== 'sse') return;
  validateRemoteConfig(d.name, c);
}
