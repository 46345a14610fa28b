import { afterEach, describe, expect, it } from 'vitest';
import { runCommandsInProcess, runMuster, useBuiltCli } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';
import { databaseUrl } from '../support/database.js';

// `--store postgres://…`: the same commands over a shared PostgreSQL store.

const url = databaseUrl();

const cli = useBuiltCli();
runCommandsInProcess();

let project: CliProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

describe.skipIf(!url)('muster sessions with --store postgres://', () => {
  it('runs into PostgreSQL and lists and shows the session from there', async () => {
    project = cliProject({});
    const model = project.turns('t.json', [{ text: 'Kept in PostgreSQL.' }]);
    const opts = { cwd: project.dir, env: project.env };
    const run = await runMuster(
      cli.bin,
      ['--json', 'run', 'hi', '--model', model, '--store', url!],
      opts,
    );
    expect(run.code).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const list = await runMuster(cli.bin, ['--json', 'sessions', 'list', '--store', url!], opts);
    const { sessions } = JSON.parse(list.stdout) as { sessions: { id: string; status: string }[] };
    expect(sessions.find((s) => s.id === sessionId)).toMatchObject({ status: 'completed' });
    const show = await runMuster(cli.bin, ['sessions', 'show', sessionId, '--store', url!], opts);
    expect(show.stdout).toContain('assistant: Kept in PostgreSQL.');
    // the local file is not used
    const local = await runMuster(cli.bin, ['--json', 'sessions', 'list'], opts);
    expect(JSON.parse(local.stdout)).toEqual({ sessions: [] });
  }, 60_000);
});

describe('muster sessions --store', () => {
  it('refuses a --store that is no postgres:// URL (exit 2)', async () => {
    const bad = await runMuster(cli.bin, ['sessions', 'list', '--store', 'mysql://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--store takes a postgres:\/\//);
  });

  it('reports an unreachable store as SESSION_STORE_FAILED (exit 7), as a run does', async () => {
    // nothing listens on port 9
    const store = 'postgres://muster@127.0.0.1:9/muster';
    const list = await runMuster(cli.bin, ['sessions', 'list', '--store', store]);
    expect(list.code, list.stderr).toBe(7);
    expect(list.stderr).toMatch(/error \[SESSION_STORE_FAILED\]: The session store/);
    const show = await runMuster(cli.bin, ['sessions', 'show', 'session_x', '--store', store]);
    expect(show.code, show.stderr).toBe(7);
    expect(show.stderr).toMatch(/error \[SESSION_STORE_FAILED\]/);
    const json = await runMuster(cli.bin, ['--json', 'sessions', 'list', '--store', store]);
    expect(json.code).toBe(7);
  }, 60_000);
});
