import { MusterError } from '../errors/index.js';
import { mcpContentText } from '../mcp/index.js';
import type { AgentSampler } from '../mcp/index.js';
import type { ModelClient, ModelMessage } from '../model/index.js';
import { pricer } from './pricing.js';
import type { Pricing } from './pricing.js';

/** Where the agent sampler takes its model from, and the prices its answers cost. */
export interface SamplerHost {
  readonly model?: ModelClient;
  readonly modelName?: string;
  readonly pricing?: Pricing;
}

/**
 * `mcp.handlers.sampling: 'agent'`: the agent's own model answers a server's sampling
 * request (already authorized as `mcp_sampling:<server>`), with no tools and at most the
 * bounded `maxTokens`. Its usage (priced when `pricing` has the model) counts toward the run
 * the request arrived during, and toward that run's budget (SPEC 15.4).
 */
export function agentSampler(host: SamplerHost): AgentSampler {
  return async (request, origin) => {
    const model = host.model;
    const modelName = host.modelName ?? model?.defaultModelName;
    if (!model || !modelName)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        "mcp.handlers.sampling is 'agent', but the agent has no model (or model name) to answer with.",
      );
    const messages: ModelMessage[] = request.messages.map((m) => {
      const parts: unknown[] = Array.isArray(m.content) ? m.content : [m.content];
      const text = parts.map(mcpContentText).join('\n');
      return m.role === 'assistant'
        ? { role: 'assistant', content: [{ type: 'text', text }] }
        : { role: 'user', content: [{ type: 'text', text }] };
    });
    const price = pricer(host.pricing, modelName);
    let text = '';
    let stop = 'endTurn';
    for await (const part of model.generate(
      {
        modelName,
        ...(request.systemPrompt ? { system: request.systemPrompt } : {}),
        messages,
        tools: [],
        stream: false,
        maxOutputTokens: origin.maxTokens,
      },
      { signal: origin.signal },
    )) {
      if (part.type === 'text-delta') text += part.text;
      if (part.type === 'finish') {
        if (part.stopReason === 'length') stop = 'maxTokens';
        if (part.usage) origin.addUsage?.(price ? price(part.usage) : part.usage);
      }
    }
    return {
      model: modelName,
      role: 'assistant',
      content: { type: 'text', text },
      stopReason: stop,
    };
  };
}
