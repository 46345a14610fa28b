import type { Agent, McpServerConfig, StandardSchemaV1Like } from '../src/index.js';
import type { Endpoint, ToolCall } from './mcp-endpoints.js';
import { ScriptedRunModel } from './mcp-model.js';
import type { RunScript } from './mcp-model.js';
import { muster } from './muster.js';

const { createAgent, tool } = muster;

/** The registry name of the measured server in every Muster agent here. */
const SERVER = 'b';
/** The host tool that does nothing, run through the same pipeline as the baseline. */
export const NOOP_TOOL = 'bench_noop';

/** What the Muster side of a comparison needs. */
export interface MusterSideSpec {
  readonly server: McpServerConfig;
  readonly hostInput: StandardSchemaV1Like;
  /** Calls per turn at most (and turns per run, plus one). */
  readonly batch: number;
}

/** What one measured Muster run reports. */
export interface RunMeasure {
  readonly wallMs: number;
  /** `tool.completed.durationMs` of every call, in order. */
  readonly durationsMs: readonly number[];
}

/**
 * Muster's protocol mode in the per-call comparisons: its default (`auto`), or
 * `BENCH_MUSTER_PROTOCOL=legacy` to compare Muster and the raw client in the same era (the
 * report names the era of every row).
 */
export function musterProtocol(): { protocol?: { mode: 'legacy' | 'auto' } } {
  const mode = process.env.BENCH_MUSTER_PROTOCOL;
  if (mode === undefined || mode === '') return {};
  if (mode !== 'legacy' && mode !== 'auto')
    throw new Error(`BENCH_MUSTER_PROTOCOL must be legacy or auto, not ${JSON.stringify(mode)}`);
  return { protocol: { mode } };
}

/** An agent with the measured server `b` and a no-op host tool, connected and ready. */
export class MusterSide {
  readonly model = new ScriptedRunModel();
  readonly agent: Agent;
  #contentChecked = false;

  constructor(spec: MusterSideSpec) {
    this.agent = createAgent({
      model: this.model,
      tools: [
        tool({
          name: NOOP_TOOL,
          description: 'Does nothing.',
          input: spec.hostInput,
          annotations: { readOnlyHint: true },
          execute: () => 'ok',
        }),
      ],
      mcp: { strictConfig: true, ...musterProtocol() },
      mcpServers: { [SERVER]: spec.server },
      policy: { allow: ['mcp_connect:*', 'mcp__*', NOOP_TOOL] },
      limits: { maxToolCallsPerTurn: spec.batch, maxIterations: spec.batch + 1 },
    });
  }

  /** Connects, and returns the model-facing name of `tool` and the era. */
  async connect(originalName: string): Promise<{ name: string; era: string }> {
    await this.agent.initialize();
    const status = this.agent.mcp.list().find((s) => s.name === SERVER);
    if (status?.status !== 'connected')
      throw new Error(`bench server did not connect: ${status?.error?.message ?? status?.status}`);
    const name = status.tools.find((t) => t.originalName === originalName)?.name;
    if (name === undefined) throw new Error(`bench server has no tool '${originalName}'`);
    return { name, era: status.era ?? '?' };
  }

  /** `agent.mcp.callTool` as an endpoint. */
  direct(call: ToolCall, era: string): Endpoint {
    const args = { ...call.args };
    return {
      era,
      call: async () => {
        const result = await this.agent.mcp.callTool(SERVER, call.tool, args);
        if (result.isError === true)
          throw new Error(`muster direct call failed: ${JSON.stringify(result).slice(0, 200)}`);
      },
      close: async () => undefined,
    };
  }

  /** One run of `script`, timed from the first pull to the last event; its session is deleted. */
  async run(
    script: RunScript,
    expectedCalls: number,
    check?: (content: string) => boolean,
  ): Promise<RunMeasure> {
    this.model.use(script);
    const durationsMs: number[] = [];
    let sessionId = '';
    let completed = false;
    let failure: string | undefined;
    const start = performance.now();
    for await (const ev of this.agent.run({ input: 'bench', stream: false })) {
      if (ev.type === 'tool.completed') {
        durationsMs.push(ev.durationMs);
        if (ev.isError) failure ??= ev.content;
        else if (check && !this.#contentChecked && !check(ev.content))
          failure ??= `unexpected content: ${ev.content.slice(0, 200)}`;
      } else if (ev.type === 'session.started') sessionId = ev.sessionId;
      else if (ev.type === 'session.completed') completed = true;
    }
    const wallMs = performance.now() - start;
    await this.agent.sessions.delete(sessionId);
    if (failure !== undefined) throw new Error(`bench tool call failed: ${failure}`);
    if (!completed || durationsMs.length !== expectedCalls)
      throw new Error(`bench run made ${durationsMs.length} of ${expectedCalls} calls`);
    if (check) this.#contentChecked = true;
    return { wallMs, durationsMs };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
