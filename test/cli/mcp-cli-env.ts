import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMuster } from '../support/cli.js';
import type { CliRun } from '../support/cli.js';

// One project folder and one MUSTER_HOME shared by a test's `muster mcp ...` runs.

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
    runMuster(bin, args, { cwd: workdir, env: { MUSTER_HOME: home } });
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
