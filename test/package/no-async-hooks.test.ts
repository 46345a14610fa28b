import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

// On Node 20 one AsyncLocalStorage (or any async hook) turns on promise hooks for the whole
// host process: every promise of the host, the agent loop and the MCP client pays for them
// from then on (docs/performance.md). Muster ties requests to their answers without them.
it('no source file uses node:async_hooks', () => {
  const users = sources(SRC).filter((file) =>
    /from 'node:async_hooks'|require\('node:async_hooks'\)|from 'async_hooks'/.test(
      readFileSync(file, 'utf8'),
    ),
  );
  expect(users.map((f) => f.slice(SRC.length + 1))).toEqual([]);
});
