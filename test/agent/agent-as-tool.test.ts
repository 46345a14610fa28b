import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { AgentEvent, ModelRequest, Usage } from '../../src/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// A lead agent's scripted model delegates to a researcher child through researcher.asTool():
// root = createAgent(...); researcher = root.child(...); lead = root.child({ tools: [researcher.asTool(...)] }).
// The researcher uses a real stdio server borrowed from the root.

const u = (n: number): Usage => ({ inputTokens: n, outputTokens: 2 * n, totalTokens: 3 * n });

function lastToolResult(request: ModelRequest): string {
  const results = request.messages.filter((m) => m.role === 'tool');
  const last = results[results.length - 1];
  return last?.role === 'tool' ? last.content : '';
}

function family(researcherTurns: Parameters<typeof scriptedModel>[0]) {
  const root = createAgent({
    model: scriptedModel([]),
    mcp: { strictConfig: true },
    mcpServers: { kb: stdioConfig('basic-server.mjs', ['--name=kb']) },
    policy: { allow: ['mcp_connect:kb', 'mcp__kb__echo', 'researcher'], default: 'deny' },
  });
  const researcherModel = scriptedModel(researcherTurns);
  const researcher = root.child({ model: researcherModel, system: 'You research.' });
  const researcherTool = researcher.asTool({
    name: 'researcher',
    description: 'Researches a question and answers it.',
  });
  return { root, researcher, researcherModel, researcherTool };
}

function runIds(events: readonly AgentEvent[]): string[] {
  return [...new Set(ofType(events, 'session.started').map((e) => e.runId))];
}

describe('child.asTool()', () => {
  it("a parent model delegates and reads the child's answer; events and usage include the sub-run", async () => {
    const { root, researcher, researcherModel, researcherTool } = family([
      { toolCalls: [{ name: 'mcp__kb__echo', arguments: { text: 'look up 42' } }], usage: u(100) },
      (req) => ({ text: `the answer is 42 (${lastToolResult(req)})`, usage: u(1000) }),
    ]);
    const leadModel = scriptedModel([
      {
        toolCalls: [{ name: 'researcher', arguments: { prompt: 'What is the answer?' } }],
        usage: u(1),
      },
      (req) => ({ text: `Lead: ${lastToolResult(req)}`, usage: u(10) }),
    ]);
    const lead = root.child({ model: leadModel, tools: [researcherTool] });
    try {
      const { events, error } = await collect(lead.run({ input: 'Ask the researcher.' }));
      expect(error).toBeUndefined();
      const answer = 'the answer is 42 (kb: look up 42)';

      // the model saw the tool and got the child's final text as its result
      expect(leadModel.requests[0]!.tools.map((t) => t.name)).toContain('researcher');
      expect(lastToolResult(leadModel.requests[1]!)).toBe(answer);
      const call = ofType(events, 'tool.completed').find((e) => e.toolName === 'researcher')!;
      expect(call).toMatchObject({ isError: false, content: answer });

      // both runs are in the lead's stream, kept apart by run id
      const [leadRun, subRun] = [
        ofType(events, 'session.started')[0]!.runId,
        ofType(events, 'session.started')[1]!.runId,
      ];
      expect(runIds(events)).toHaveLength(2);
      expect(leadRun).not.toBe(subRun);
      const sub = events.filter((e) => e.runId === subRun);
      expect(sub.map((e) => e.type)).toEqual(
        expect.arrayContaining(['session.started', 'tool.completed', 'session.completed']),
      );
      expect(ofType(sub, 'tool.completed')[0]).toMatchObject({ toolName: 'mcp__kb__echo' });
      const completed = ofType(events, 'session.completed');
      expect(completed.map((e) => e.runId)).toEqual([subRun, leadRun]);
      expect(researcherModel.requests[0]!.system).toBe('You research.');
      expect(researcherModel.requests[0]!.messages.at(-1)).toMatchObject({
        role: 'user',
        content: [{ type: 'text', text: 'What is the answer?' }],
      });

      // the lead's usage includes the delegated run's, in the event and in its session
      const leadDone = completed[1]!;
      expect(leadDone.content).toBe(`Lead: ${answer}`);
      expect(leadDone.usage).toEqual(u(1 + 10 + 100 + 1000));
      expect((await root.sessions.get(leadDone.sessionId))!.usage).toEqual(u(1111));
      // agent.usage counts each run once, at the agent that ran it (and its ancestors)
      expect(researcher.usage).toEqual(u(1100));
      expect(lead.usage).toEqual(u(11));
      expect(root.usage).toEqual(u(1111));
    } finally {
      await root.close();
    }
  }, 30_000);

  it('send() answers with its own run, not the delegated one', async () => {
    const { root, researcherTool } = family([{ text: 'sub answer', usage: u(5) }]);
    const lead = root.child({
      model: scriptedModel([
        { toolCalls: [{ name: 'researcher', arguments: { prompt: 'q' } }], usage: u(1) },
        { text: 'lead answer', usage: u(2) },
      ]),
      tools: [researcherTool],
    });
    try {
      const reply = await lead.send('go');
      expect(reply.text).toBe('lead answer');
      expect(reply.usage).toEqual(u(1 + 2 + 5));
      expect(ofType(reply.events, 'session.started')[0]!.sessionId).toBe(reply.sessionId);
    } finally {
      await root.close();
    }
  }, 30_000);

  it("a failed sub-run is an error result with its code; the caller's pipeline still governs the call", async () => {
    // the researcher's model has no turn: its run fails with MODEL_RESPONSE_INVALID
    const { root, researcherModel, researcherTool } = family([]);
    const lead = root.child({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'researcher', arguments: { prompt: 'fail please' } },
            { name: 'researcher', arguments: { question: 'not a prompt' } },
          ],
        },
        { text: 'lead carried on' },
      ]),
      tools: [researcherTool],
    });
    const guarded = root.child({
      model: scriptedModel([
        { toolCalls: [{ name: 'researcher', arguments: { prompt: 'denied' } }] },
        { text: 'guarded done' },
      ]),
      tools: [researcherTool],
      policy: { deny: ['researcher'] },
    });
    try {
      const { events, error } = await collect(lead.run({ input: 'go' }));
      expect(error).toBeUndefined();
      const [failed, invalid] = ofType(events, 'tool.completed').filter(
        (e) => e.toolName === 'researcher',
      );
      expect(failed).toMatchObject({ isError: true, errorCode: 'TOOL_EXECUTION_FAILED' });
      expect(failed!.content).toContain('MODEL_RESPONSE_INVALID');
      expect(ofType(events, 'session.failed')).toHaveLength(1);
      expect(invalid).toMatchObject({ isError: true, errorCode: 'TOOL_ARGUMENTS_INVALID' });
      expect(researcherModel.requests).toHaveLength(1);

      const denied = await collect(guarded.run({ input: 'go' }));
      expect(ofType(denied.events, 'tool.completed')[0]).toMatchObject({
        toolName: 'researcher',
        errorCode: 'TOOL_DENIED',
      });
      expect(researcherModel.requests).toHaveLength(1);
      expect(runIds(denied.events)).toHaveLength(1);
    } finally {
      await root.close();
    }
  }, 30_000);
});
