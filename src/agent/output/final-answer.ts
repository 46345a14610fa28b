import { MusterError } from '../../errors/index.js';
import { formatIssues } from '../../tools/index.js';
import type { AnswerReading, OutputSpec } from './output-spec.js';

type Refusal = Extract<AnswerReading, { ok: false }>;

/** The most issues a repair turn or an error lists. */
const MAX_ISSUES = 20;

/**
 * The user message of a repair turn: what was wrong with the final answer, and what to send
 * instead. It is committed to the transcript like any user message.
 */
export function repairInstruction(name: string, reading: Refusal): string {
  const issues = reading.issues
    .slice(0, MAX_ISSUES)
    .map((i) => `- ${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('\n');
  return (
    `Your final answer does not match the required output schema '${name}':\n${issues}\n` +
    'Answer again with only the JSON value, matching the schema.'
  );
}

/** `OUTPUT_INVALID` for a final answer still invalid after `repairs` repair turns. */
export function outputInvalidError(
  reading: Refusal,
  repairs: number,
): MusterError<'OUTPUT_INVALID'> {
  const what =
    reading.reason === 'output-not-json' ? 'is not JSON' : 'does not match the output schema';
  const after = repairs === 0 ? '' : ` after ${repairs} repair turn${repairs === 1 ? '' : 's'}`;
  return new MusterError(
    'OUTPUT_INVALID',
    `The model's final answer ${what}${after} (${formatIssues(reading.issues)}): raise outputRepairs, simplify the schema or use a model with structured output.`,
    {
      details: {
        reason: reading.reason,
        issues: reading.issues
          .slice(0, MAX_ISSUES)
          .map((i) => ({ path: [...i.path], message: i.message })),
        repairs,
      },
    },
  );
}

/**
 * The final answer a resumed run found committed (its process died before completing): read
 * with the run's `output`, if it asks for one. No repair turn is left to it: an invalid one
 * is `OUTPUT_INVALID`.
 */
export async function readCommittedAnswer(
  content: string,
  output: OutputSpec | undefined,
): Promise<{ readonly content: string; readonly output?: unknown }> {
  if (!output) return { content };
  const reading = await output.read(content);
  if (!reading.ok) throw outputInvalidError(reading, 0);
  return { content, output: reading.value };
}
