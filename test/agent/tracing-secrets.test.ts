import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { startModernOnlyHttpServer, stdioConfig } from '../support/mcp-fixtures.js';
import type { HttpFixture } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';
import { byName, one, recorder } from '../support/tracing.js';

// SPEC 12b: no header, env value, bearer token or OAuth-like value reaches a span, from a real
// loopback HTTP server, a real stdio server and one that cannot be reached.

describe('secrets never reach a span', () => {
  let http: HttpFixture | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it('finds no header, env, bearer token or OAuth-like value in any name, attribute, event or status', async () => {
    const canaries = {
      header: 'canary-header-7f3a9c2e5b',
      env: 'canary-env-4d8e1b6f0a',
      bearer: 'canary-bearer-9c2d7e4a1f',
      oauth: 'canary-oauth-code-3b5f8a0d6e',
      failing: 'canary-failing-header-6a1e9d4c2b',
    };
    http = await startModernOnlyHttpServer();
    const { exporter, tracer } = recorder();
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'mcp__remote__echo', arguments: { text: 'one' } },
            { name: 'mcp__local__echo', arguments: { text: 'two' } },
          ],
        },
        { text: 'done' },
      ]),
      modelName: 'scripted-1',
      mcp: { strictConfig: true },
      mcpServers: {
        remote: {
          type: 'http',
          url: `${http.url}?code=${canaries.oauth}`,
          headers: { 'X-Api-Key': canaries.header },
          auth: { type: 'bearer', token: canaries.bearer },
        },
        local: { ...stdioConfig('basic-server.mjs'), env: { API_SECRET: canaries.env } },
        gone: {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          headers: { 'X-Api-Key': canaries.failing },
          connectTimeoutMs: 5_000,
        },
      },
      policy: { allow: ['mcp__remote__echo', 'mcp__local__echo', 'mcp_connect:*'] },
      // content on as well: the secrets are in no argument or result either
      observability: { tracer, traceContent: true },
    });
    try {
      const { error } = await collect(agent.run({ input: 'echo twice' }));
      expect(error).toBeUndefined();
      const spans = exporter.getFinishedSpans();
      // the spans the canaries could have leaked into are there
      const connects = byName(spans, 'initialize');
      expect(connects.map((s) => s.attributes['muster.mcp.server']).sort()).toEqual([
        'gone',
        'local',
        'remote',
      ]);
      const gone = connects.find((s) => s.attributes['muster.mcp.server'] === 'gone')!;
      expect(gone.attributes['error.type']).toEqual(expect.any(String));
      expect(gone.attributes['network.transport']).toBe('tcp');
      const remoteCall = one(spans, 'execute_tool mcp__remote__echo');
      expect(remoteCall.attributes['error.type']).toBeUndefined();
      // content is recorded (traceContent), and still no secret
      expect(String(remoteCall.attributes['gen_ai.tool.call.result'])).toContain('one');
      const dump = JSON.stringify(
        spans.map((s) => ({
          name: s.name,
          attributes: s.attributes,
          events: s.events,
          status: s.status,
          links: s.links,
        })),
      );
      for (const [what, value] of Object.entries(canaries))
        expect(dump.includes(value), `${what} canary in a span`).toBe(false);
    } finally {
      await agent.close();
    }
  }, 30_000);
});
