import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../package/built-package.js';
import { buildCli, runMuster } from '../support/cli.js';

// The bin as it ships: its version, its help, and a usage error's exit code (docs/cli.md).

let cli: ReturnType<typeof buildCli>;
beforeAll(() => {
  cli = buildCli();
}, 120_000);
afterAll(() => cli.cleanup());

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
    expect(bad.stderr).toMatch(/error/);
    expect(bad.stdout).toBe('');
  });
});
