import { createRequire } from 'node:module';
import type { z } from 'zod';

type Zod = typeof z;
let zod: Zod | undefined;

/**
 * Zod, loaded on first use (synchronously, from its CommonJS build), so that importing Muster
 * and creating an agent without MCP servers never pay for it.
 */
export function loadZod(): Zod {
  zod ??= (createRequire(import.meta.url)('zod') as { z: Zod }).z;
  return zod;
}
