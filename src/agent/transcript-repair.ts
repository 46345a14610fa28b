import type { ModelMessage, ToolResultMessage } from '../model/index.js';

/**
 * Results for tool calls that a transcript asked for but never answered (a run that died
 * between committing the model's turn and committing its results). Each is marked
 * `TOOL_OUTCOME_UNKNOWN` for the model and is never replayed. Append-only transcripts can only
 * have such calls at their end, so the results are appended.
 */
export function unansweredCallResults(messages: readonly ModelMessage[]): ToolResultMessage[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === 'tool') answered.add(m.callId);
  const out: ToolResultMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const part of m.content) {
      if (part.type === 'tool-call' && !answered.has(part.callId)) {
        out.push({
          role: 'tool',
          callId: part.callId,
          toolName: part.name,
          content:
            'Error [TOOL_OUTCOME_UNKNOWN]: the run ended before the result of this call was recorded; it may or may not have run, and it was not retried.',
          isError: true,
        });
      }
    }
  }
  return out;
}
