import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { runMuster, useBuiltCli } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';
import { startHttpFixture } from '../support/mcp-fixtures.js';
import type { HttpFixture } from '../support/mcp-fixtures.js';

// One project folder and one MUSTER_HOME shared by a test's `muster mcp ...` runs.

/**
 * For the calling test file: the built bin and a loopback Streamable HTTP server (the `'dual'`
 * fixture), started before its tests and stopped after them. Read them inside tests.
 */
export function useMcpCliFixtures(): {
  readonly cli: { readonly bin: string };
  readonly http: HttpFixture;
} {
  const cli = useBuiltCli();
  let http: HttpFixture | undefined;
  beforeAll(async () => {
    http = await startHttpFixture('dual');
  }, 60_000);
  afterAll(() => http?.close());
  return {
    cli,
    get http() {
      if (!http) throw new Error('useMcpCliFixtures(): the server starts in beforeAll');
      return http;
    },
  };
}

/** A project workdir and a MUSTER_HOME, and `muster` run against both. */
export interface MusterDirs {
  readonly workdir: string;
  readonly home: string;
  readonly projectFile: string;
  readonly userFile: string;
  /** Runs `muster <args>` in the workdir with this MUSTER_HOME. */
  run(args: readonly string[]): Promise<CliRun>;
  /** Runs `muster --json <args>` and parses its one JSON document. */
  json(args: readonly string[]): Promise<CliRun & { doc: Record<string, unknown> }>;
  /** The bytes of both config files (undefined when absent). */
  files(): { project: string | undefined; user: string | undefined };
}

/** Fresh dirs for the bin at `bin`. */
export function musterDirs(bin: string): MusterDirs {
  const workdir = mkdtempSync(join(tmpdir(), 'muster-cli-wd-'));
  const home = mkdtempSync(join(tmpdir(), 'muster-cli-home-'));
  const projectFile = join(workdir, '.muster', 'mcp.json');
  const userFile = join(home, 'mcp.json');
  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);
  const run = (args: readonly string[]) =>
    runMuster(bin, args, { cwd: workdir, env: { MUSTER_HOME: home }, inProcess: true });
  return {
    workdir,
    home,
    projectFile,
    userFile,
    run,
    async json(args) {
      const r = await run(['--json', ...args]);
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(r.stdout) as Record<string, unknown>;
      } catch {
        throw new Error(`not one JSON document (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
      }
      return { ...r, doc };
    },
    files: () => ({ project: read(projectFile), user: read(userFile) }),
  };
}
