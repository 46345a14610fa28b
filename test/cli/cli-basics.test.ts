import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { runMuster, useBuiltCli } from '../support/cli.js';

// The bin as it ships: its version, its help, and a usage error's exit code (docs/cli.md).

const cli = useBuiltCli();

describe('the muster bin', () => {
  it('prints its version and help, and exits 2 on an unknown command', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const v = await runMuster(cli.bin, ['--version']);
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await runMuster(cli.bin, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: muster');
    const bad = await runMuster(cli.bin, ['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown command 'frobnicate'");
    expect(bad.stdout).toBe('');
  });

  it('ends quietly when its reader stops early (EPIPE)', async () => {
    const { execFile } = await import('node:child_process');
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [cli.bin, 'mcp', '--help'], (error, _out, stderr) =>
        resolve({ code: error ? (error.code as number) : 0, stderr }),
      );
      child.stdout?.destroy();
    });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.code).toBe(0);
  });

  it('prints a usage error as one JSON document on stdout with --json', async () => {
    const bad = await runMuster(cli.bin, ['--json', 'mcp', 'list', '--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--frobnicate'");
    expect(JSON.parse(bad.stdout)).toEqual({
      error: { code: 'INVALID_CONFIGURATION', message: "unknown option '--frobnicate'" },
    });
    const missing = await runMuster(cli.bin, ['mcp', 'tools', '--json']);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      error: { code: 'INVALID_CONFIGURATION', message: expect.stringContaining("'name'") },
    });
    // a --json after -- is an argument, not the option
    const after = await runMuster(cli.bin, ['frobnicate', '--', '--json']);
    expect(after).toMatchObject({ code: 2, stdout: '' });
  });

  it('shows examples in the help of muster, muster mcp and muster sessions', async () => {
    for (const args of [['--help'], ['mcp', '--help'], ['sessions', '--help']]) {
      const help = await runMuster(cli.bin, args);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/Examples:\n {2}\$ muster /);
    }
    const root = await runMuster(cli.bin, ['--help']);
    expect(root.stdout).toContain('130 interrupted');
    // a header example that stores the token, not a literal $TOKEN, and not in the project file
    const add = await runMuster(cli.bin, ['mcp', 'add', '--help']);
    expect(add.stdout).toContain('--scope user');
    expect(add.stdout).toContain('--header "Authorization: Bearer $TOKEN"');
    expect(add.stdout).not.toContain("'Authorization");
    expect(add.stdout).toContain('stored verbatim');
  });

  it('does not load the prompt library for --version or mcp list --no-connect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-loads-'));
    try {
      const loaded = (args: string[]) =>
        new Promise<{ code: number; urls: string[] }>((resolve) => {
          const log = join(dir, `loads-${args.join('-')}.log`);
          execFile(
            process.execPath,
            ['--import', join(ROOT, 'test/fixtures/package/record-loads.mjs'), cli.bin, ...args],
            {
              cwd: dir,
              env: { PATH: process.env['PATH'] ?? '', MUSTER_HOME: dir, MUSTER_LOAD_LOG: log },
              timeout: 30_000,
            },
            (error) => {
              const urls = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
              resolve({ code: error ? Number(error.code) : 0, urls });
            },
          ).stdin?.end();
        });
      for (const args of [['--version'], ['mcp', 'list', '--no-connect']]) {
        const { code, urls } = await loaded(args);
        expect(code).toBe(0);
        // the bin's own modules were recorded, so an @inquirer module would have been too
        expect(urls.some((u) => u.includes('/dist/cli/program.js'))).toBe(true);
        expect(urls.filter((u) => /\/node_modules\/(@inquirer|ora)\//.test(u))).toEqual([]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
