import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCpuList } from '../../bench/cpu-pinning.js';
import { PEERS_INSTALL_HINT, peersInstalled } from '../../bench/peers.js';

// `npm run bench:peers` checks the peer clients before it builds anything: without them it
// prints the install line on stderr and exits non-zero.

const ROOT = resolve(import.meta.dirname, '../..');
const ENTRY = join(ROOT, 'bench/peers-run.ts');
const DEFAULT_PEERS = join(ROOT, 'bench/peers');

function check(peersDir: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', ENTRY, '--check'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, BENCH_PEERS_DIR: peersDir },
    timeout: 60_000,
  });
}

describe('npm run bench:peers --check', () => {
  const empty = mkdtempSync(join(tmpdir(), 'muster-bench-peers-'));
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('exits non-zero and prints the install line on stderr without the peers', () => {
    const result = check(empty);
    expect(result.error).toBeUndefined();
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(PEERS_INSTALL_HINT);
    expect(result.stdout).toBe('');
  });

  it('passes where the peers are installed', () => {
    // the installed folder when there is one, else a folder holding what the check looks for
    const dir = peersInstalled(DEFAULT_PEERS) ? DEFAULT_PEERS : join(empty, 'installed');
    if (dir !== DEFAULT_PEERS) {
      const marker = join(dir, 'node_modules/@ai-sdk/mcp');
      mkdirSync(marker, { recursive: true });
      writeFileSync(join(marker, 'package.json'), '{"name":"@ai-sdk/mcp","version":"1.0.102"}');
    }
    expect(peersInstalled(dir)).toBe(true);
    const result = check(dir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('runs before the build in the npm script', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const script = manifest.scripts['bench:peers'] ?? '';
    const checkAt = script.indexOf('bench/peers-run.ts --check');
    expect(checkAt).toBeGreaterThanOrEqual(0);
    expect(script.indexOf('npm run build')).toBeGreaterThan(checkAt);
  });
});

describe('parseCpuList', () => {
  it('reads the lists taskset prints', () => {
    expect(parseCpuList(' 0,1\n')).toEqual([0, 1]);
    expect(parseCpuList('0-3,6')).toEqual([0, 1, 2, 3, 6]);
    expect(parseCpuList('2')).toEqual([2]);
  });
});
