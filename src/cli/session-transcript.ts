import type { ModelMessage } from '../model/index.js';
import type { SessionState, SessionSummary } from '../session/index.js';
import { inCliTerms } from './cli-terms.js';
import type { Output } from './output.js';
import { textTable } from './text-table.js';
import { truncate } from './truncate.js';
import { jsonText } from '../util/index.js';

/** How long ago `iso` was, in the largest whole unit (`5s`, `3m`, `2h`, `4d`). */
export function age(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** The `sessions list` table: id, status, age (since the last change), message count. */
export function sessionTable(sessions: readonly SessionSummary[]): string[] {
  const rows = sessions.map((s) => [s.id, s.status, age(s.updatedAt), String(s.messageCount)]);
  return textTable(['ID', 'STATUS', 'AGE', 'MESSAGES'], rows);
}

/**
 * Prints a session's transcript readably: user and assistant text, tool calls with their
 * arguments, results (cut to `maxResult` characters) and the recorded error.
 */
export function printTranscript(out: Output, state: SessionState, maxResult = 500): void {
  out.line(out.paint('bold', `session ${state.id}`));
  out.line(
    `status ${state.status} · ${state.messages.length} messages · updated ${age(state.updatedAt)} ago · tokens in ${state.usage.inputTokens} out ${state.usage.outputTokens}`,
  );
  for (const message of state.messages) {
    out.line();
    for (const line of messageLines(out, message, maxResult)) out.line(line);
  }
  if (state.error) {
    out.line();
    out.line(out.paint('red', `error [${state.error.code}]: ${inCliTerms(state.error.message)}`));
  }
}

function messageLines(out: Output, message: ModelMessage, maxResult: number): string[] {
  switch (message.role) {
    case 'system':
      return [out.paint('dim', `system: ${message.content}`)];
    case 'user':
      return [
        `${out.paint('bold', 'user:')} ${message.content
          .map((p) => (p.type === 'text' ? p.text : `[image ${p.mimeType}]`))
          .join(' ')}`,
      ];
    case 'assistant':
      return message.content.flatMap((p) => {
        if (p.type === 'text')
          return p.text === '' ? [] : [`${out.paint('bold', 'assistant:')} ${p.text}`];
        if (p.type === 'reasoning')
          return [out.paint('dim', `(reasoning) ${truncate(p.text, maxResult)}`)];
        return [
          out.paint('cyan', `tool call ${p.name} ${argumentsText(p.arguments)} [${p.callId}]`),
        ];
      });
    case 'tool': {
      const label = message.isError
        ? out.paint('red', `tool error ${message.toolName}`)
        : `tool result ${message.toolName}`;
      return [`${label} [${message.callId}]: ${truncate(message.content, maxResult)}`];
    }
  }
}

/** A stored call's arguments as JSON text, however deep they nest (no recursion). */
function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : (jsonText(args ?? {}) ?? '{}');
}
