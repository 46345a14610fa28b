/**
 * What validating one long string against a schema `pattern` costs under each engine: RE2
 * (the engine for a server's schemas, linear time) against JavaScript's own `RegExp` (the
 * engine for the host's schemas). The validator is internal: measured through its folder's
 * face, with the same schema object each time (compiled once, as a listed tool's is).
 */
import { elapsedNs, scaleSummary, summarize } from './stats.js';
import type { Summary } from './stats.js';
import { musterTools } from './muster.js';

const { validateJsonSchema } = musterTools;

/** The string validated: 10,000 characters. */
export const PATTERN_INPUT_CHARS = 10_000;

/** The patterns measured: a character class, and words separated by single spaces. */
const PATTERNS = [
  { label: '^[A-Za-z0-9 _.-]+$', pattern: '^[A-Za-z0-9 _.-]+$' },
  { label: '^(?:[a-z]+ )*[a-z]+$', pattern: '^(?:[a-z]+ )*[a-z]+$' },
] as const;

/** How many validations each case makes. */
export interface SchemaPatternOptions {
  readonly warmup: number;
  /** Each sample times one batch of validations and divides by its size. */
  readonly batchSize: number;
  readonly samples: number;
}

/** One pattern under one engine, in microseconds per validation. */
export interface SchemaPatternCase {
  readonly label: string;
  readonly engine: 'native' | 're2';
  readonly perValidationUs: Summary;
}

/** Measures every pattern under both engines, on a matching 10,000-character string. */
export async function measureSchemaPatterns(
  options: SchemaPatternOptions,
): Promise<readonly SchemaPatternCase[]> {
  // words of five letters and a space: matches both patterns, and fills 10,000 characters
  const text = 'abcde '.repeat(PATTERN_INPUT_CHARS / 6 + 1).slice(0, PATTERN_INPUT_CHARS - 1) + 'z';
  const cases: SchemaPatternCase[] = [];
  for (const { label, pattern } of PATTERNS) {
    const schema = { type: 'object', properties: { text: { type: 'string', pattern } } };
    const value = { text };
    for (const engine of ['native', 're2'] as const) {
      const first = await validateJsonSchema(schema, value, engine);
      if (!first.success) throw new Error(`bench: ${label} did not match its input`);
      for (let i = 0; i < options.warmup; i++) await validateJsonSchema(schema, value, engine);
      const samples: number[] = [];
      for (let s = 0; s < options.samples; s++) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < options.batchSize; i++) await validateJsonSchema(schema, value, engine);
        samples.push(elapsedNs(start) / options.batchSize);
      }
      cases.push({ label, engine, perValidationUs: scaleSummary(summarize(samples), 1e-3) });
    }
  }
  return cases;
}
