import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpError } from '../../src/errors/index.js';
import { openConnection } from '../../src/mcp/client/connection-open.js';
import type {
  ConnectionSpec,
  McpConnection,
  ServerProcess,
} from '../../src/mcp/client/mcp-connection.js';
import { HandedOverError } from '../../src/mcp/client/pipe-lease.js';
import { readCountingLog, stdioConfig } from '../support/mcp-fixtures.js';

// The handover of a stdio server's process in `auto` mode (src/mcp/client/connection-open.ts):
// until a client adopts the pipe (the legacy trial's, or the modern one's after a refusal), no
// connection owns the process; whatever ends the connect then must stop it, and a refused send
// of a handed-over client never reaches the caller as it is. The steps are driven through
// `openConnection` with a `connect` of the test's own over a real counting-server process.

/** A spec for a dual-era counting server (no extensions) in `auto` mode, logging to `log`. */
function specOf(log: string, extra: Partial<ConnectionSpec> = {}): ConnectionSpec {
  return {
    server: 'c',
    config: stdioConfig('counting-server.mjs', [`--log=${log}`, '--log-exit']),
    mode: 'auto',
    transport: { server: 'c', maxResponseBytes: 1 << 20, stderrBytes: 4096 },
    connectTimeoutMs: 20_000,
    onToolsChanged: () => undefined,
    onUnexpectedClose: () => undefined,
    ...extra,
  };
}

const freshLog = () => join(mkdtempSync(join(tmpdir(), 'muster-handover-')), 'log');

describe('the handover of a stdio process between era clients', () => {
  it('an abort during the legacy trial, before its client took the pipe, stops the process', async () => {
    const log = freshLog();
    const controller = new AbortController();
    const started: ServerProcess[] = [];
    let calls = 0;
    const failure = await openConnection<McpConnection>(
      specOf(log, { signal: controller.signal, onProcess: (p) => started.push(p) }),
      async (_spec, link, bound) => {
        // the trial's client starts the process, and is cut short before it takes the pipe
        // (the caller aborts)
        calls++;
        await link.transport.start();
        await expect
          .poll(async () => (await readCountingLog(log)).length, { timeout: 10_000 })
          .toBe(1);
        controller.abort(new Error('stop'));
        throw bound.failure;
      },
    ).catch((err: unknown) => err);
    expect(calls).toBe(1);
    expect(failure).toMatchObject({ code: 'ABORTED' });
    expect(started).toHaveLength(1);
    await expect.poll(() => started[0]!.exit(), { timeout: 5_000 }).toBeDefined();
    const lines = await readCountingLog(log);
    expect(lines.map((l) => l.event)).toEqual(['start', 'exit']);
  }, 30_000);

  it('a refused send of a handed-over client reaches the caller as a connect failure of Muster', async () => {
    const log = freshLog();
    const failure = await openConnection<McpConnection>(specOf(log), async () => {
      throw new HandedOverError();
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(McpError);
    expect(failure).toMatchObject({ code: 'MCP_CONNECTION_FAILED', details: { server: 'c' } });
    expect(failure).not.toBeInstanceOf(HandedOverError);
    expect(await readCountingLog(log)).toEqual([]); // no process was started
  });
});
