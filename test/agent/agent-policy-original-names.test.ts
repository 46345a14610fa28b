import { describe, expect, it } from 'vitest';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { PolicyOptions } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

const LONG = `export_${'x'.repeat(90)}`;
const ORIGINALS = ['search.v2', 'repos/list', LONG, 'a*b', 'axb'];

function server(ran: string[]) {
  return createSdkMcpServer({
    name: 'odd',
    tools: ORIGINALS.map((name) =>
      sdkTool(name, `Tool ${name}.`, {}, async () => {
        ran.push(name);
        return { content: [{ type: 'text', text: `ran ${name}` }] };
      }),
    ),
  });
}

/** Calls every tool of the server once (by its model-facing name) under `policy`. */
async function callAll(policy: PolicyOptions) {
  const ran: string[] = [];
  const odd = server(ran);
  const lister = createAgent({
    model: scriptedModel([{ text: 'x' }]),
    mcp: { strictConfig: true },
    mcpServers: { odd: { type: 'sdk', server: odd } },
    policy: { allow: ['mcp_connect:*'] },
  });
  await lister.initialize();
  const names = new Map(
    lister.mcp.list()[0]!.tools.map((t) => [t.originalName ?? t.name, t.name] as const),
  );
  await lister.close();
  const calls = ORIGINALS.map((o) => ({ name: names.get(o)!, arguments: {} }));
  expect(calls.every((c) => c.name !== undefined)).toBe(true);
  const agent = createAgent({
    model: scriptedModel([{ toolCalls: calls }, { text: 'done' }]),
    mcp: { strictConfig: true },
    mcpServers: { odd: { type: 'sdk', server: odd } },
    policy: { ...policy, allow: ['mcp_connect:*', ...(policy.allow ?? [])] },
    limits: { maxToolCallsPerTurn: ORIGINALS.length },
  });
  try {
    const { events, error } = await collect(agent.run({ input: 'go' }));
    expect(error).toBeUndefined();
    const decided = new Map(
      ofType(events, 'tool.decision').map((d) => [d.toolName, d.decision] as const),
    );
    return {
      ran,
      decision: (original: string) => decided.get(names.get(original)!),
    };
  } finally {
    await agent.close();
  }
}

describe('policy patterns name MCP tools by their original names', () => {
  it('allows dotted, slashed and long original names by mcp__<server>__<original>', async () => {
    const { ran, decision } = await callAll({
      default: 'deny',
      allow: ['mcp__odd__search.v2', 'mcp__odd__repos/list', `mcp__odd__${LONG}`],
    });
    expect(ran.sort()).toEqual([LONG, 'repos/list', 'search.v2'].sort());
    expect(decision('search.v2')).toBe('allow');
    expect(decision('a*b')).toBe('deny');
  });

  it('denies them by the same patterns', async () => {
    const { ran, decision } = await callAll({
      default: 'allow',
      deny: ['mcp__odd__search.v2', 'mcp__odd__repos/list', `mcp__odd__${LONG}`],
    });
    expect(ran.sort()).toEqual(['a*b', 'axb']);
    expect(decision('repos/list')).toBe('deny');
  });

  it('reads \\* as a literal star: it denies a*b and not axb', async () => {
    const { ran, decision } = await callAll({ default: 'allow', deny: ['mcp__odd__a\\*b'] });
    expect(decision('a*b')).toBe('deny');
    expect(decision('axb')).toBe('allow');
    expect(ran).toContain('axb');
    expect(ran).not.toContain('a*b');
  });
});
