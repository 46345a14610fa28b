import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChild } from '../support/child-agent.js';

// SPEC 15: "Muster never holds a process for that: the run parks." A parked run keeps no
// handle, timer or socket in the process that parked it, so parking 100 runs holds exactly
// what parking one does. Measured in a process of its own (the fixture): the test runner's
// own timers come and go in this one.

const FIXTURE = 'test/fixtures/session/park-many.ts';
const dir = mkdtempSync(join(tmpdir(), 'muster-park-many-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Reading {
  readonly resources: Record<string, number>;
  readonly timers: number;
}

describe.each([
  ['the memory store', { PARK_STORE: 'memory' }],
  ['SQLite', { PARK_STORE: 'sqlite', PARK_DB: join(dir, 'sessions.db') }],
])('parked runs on %s', (_name, env) => {
  it('hold no resources: the process after parking 100 runs holds what it held after parking one', async () => {
    const child = startChild(FIXTURE, env);
    const result = JSON.parse(await child.line('RESULT')) as {
      afterOne: Reading;
      afterHundred: Reading;
      statuses: string[];
      parked: number;
      waitSessions: number;
    };
    expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
    // the runs did park: 100 sessions, each holding its wait
    expect(result.statuses).toEqual(Array.from({ length: 100 }, () => 'parked'));
    expect(result.parked).toBe(100);
    expect(result.waitSessions).toBe(100);
    expect(result.afterHundred).toEqual(result.afterOne);
  });
});
