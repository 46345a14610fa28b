import { describe, expect, it } from 'vitest';
import { createMcpRuntime } from '../../src/mcp/index.js';
import type { ExecutorEvent, ExecutorRunContext } from '../../src/tools/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';

// The MCP tool executor lets go of a run's context when the run ends: a server request
// that arrives afterwards goes to the background, never into the finished run.

const allow = async () => ({ decision: 'allow', stage: 'allow' }) as const;

describe('McpToolExecutor run contexts', () => {
  it('after a run ended by abort, its server requests go to the background', async () => {
    const background: unknown[] = [];
    const finished: ExecutorEvent[] = [];
    const runtime = createMcpRuntime(
      {
        mcp: {
          strictConfig: true,
          protocol: { mode: 'legacy' },
          handlers: { elicitation: async () => ({ action: 'accept' }) },
        },
        mcpServers: { features: stdioConfig('features-server.mjs') },
      },
      {
        exclusive: (_op, fn) => fn(),
        contextFor: (op) => ({
          sessionId: op,
          runId: op,
          signal: new AbortController().signal,
          emit: (e) => background.push(e),
          authorize: allow,
        }),
      },
      (e) => background.push(e),
    );
    try {
      const controller = new AbortController();
      const run: ExecutorRunContext = {
        sessionId: 'session-a',
        runId: 'run-a',
        signal: controller.signal,
        emit: (e) => finished.push(e),
        authorize: allow,
      };
      await runtime.executor.prepareRun(run);
      controller.abort();
      // a call still carrying the finished run's id (a late straggler)
      await runtime.executor.execute(
        'mcp__features__ask-url',
        {},
        {
          signal: new AbortController().signal,
          sessionId: 'session-a',
          runId: 'run-a',
          callId: 'late',
          iteration: 1,
          maxResultBytes: 100_000,
          reportProgress: () => undefined,
        },
      );
      expect(finished.filter((e) => e.type.startsWith('elicitation.'))).toEqual([]);
      expect(background).toContainEqual(
        expect.objectContaining({ type: 'elicitation.requested', mode: 'url' }),
      );
    } finally {
      await runtime.executor.close();
    }
  }, 20_000);
});
