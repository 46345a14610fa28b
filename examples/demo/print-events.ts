// example-helper: not run on its own
import type { Writable } from 'node:stream';
import type { AgentEvent } from '../../src/index.js';

// How the demo shows a run: the model's text as it streams (deltas written as they come,
// no newline per delta), and one indented line per tool call, policy decision and result.

let midText = false;

function line(out: Writable, text: string): void {
  if (midText) out.write('\n');
  midText = false;
  out.write(`${text}\n`);
}

const clip = (text: string, max = 110): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The text a tool result carries: MCP content blocks, a `context` page, else as it is. */
function textOf(content: string): string {
  try {
    const value = JSON.parse(content) as { text?: unknown; content?: { text?: unknown }[] };
    if (typeof value.text === 'string') return JSON.stringify(value.text);
    const texts = (value.content ?? []).map((c) => c.text).filter((t) => typeof t === 'string');
    if (texts.length > 0) return texts.join(' ');
  } catch {
    // not JSON: shown as it is
  }
  return content;
}

/** Writes one event of the demo's run to `out`. */
export function printEvent(ev: AgentEvent, out: Writable): void {
  switch (ev.type) {
    case 'mcp.server.status':
      if (ev.status === 'connected') line(out, `[mcp] ${ev.server} connected`);
      return;
    case 'model.delta':
      if (ev.kind !== 'text') return;
      if (!midText) out.write('model> ');
      midText = true;
      out.write(ev.content);
      return;
    case 'tool.decision':
      line(
        out,
        `  [policy] ${ev.toolName}: ${ev.decision}${ev.reason === undefined ? '' : ` (${clip(ev.reason, 80)})`}`,
      );
      return;
    case 'tool.called':
      line(out, `  [call] ${ev.toolName} ${clip(JSON.stringify(ev.arguments), 90)}`);
      return;
    case 'tool.completed': {
      const archived = /\[archived: [^\]]*\]/.exec(ev.content)?.[0];
      const shown = archived ?? clip(textOf(ev.content));
      line(out, `  [result] ${ev.toolName}${ev.isError ? ' (refused)' : ''}: ${shown}`);
      return;
    }
    case 'session.completed':
      line(out, `[done] ${ev.iterations} model turns, ${ev.usage.totalTokens} tokens`);
      return;
    case 'session.failed':
      line(out, `[failed] ${ev.error.code}: ${ev.error.message}`);
      return;
    default:
      return;
  }
}
