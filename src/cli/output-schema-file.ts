import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MusterError } from '../errors/index.js';
import type { JsonSchema } from '../tools/index.js';

/**
 * Reads the JSON Schema file of `muster run --output-schema <file>` (relative to `cwd`).
 * A file that cannot be read, is not JSON or does not hold a JSON object fails with
 * `INVALID_CONFIGURATION` (exit 2) naming the flag and the file; whether the schema compiles
 * is checked by the run, before the model is asked anything.
 */
export function readOutputSchema(file: string, cwd: string): JsonSchema {
  const path = resolve(cwd, file);
  const refuse = (why: string, cause?: unknown): MusterError =>
    new MusterError(
      'INVALID_CONFIGURATION',
      `--output-schema ${path}: ${why}. Give a file holding a JSON Schema object, such as { "type": "object", "properties": { … } }.`,
      { cause },
    );
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw refuse(
      code === 'ENOENT' ? 'no such file' : `cannot read it (${(err as Error).message})`,
      err,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw refuse(`it is not JSON (${(err as Error).message})`, err);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw refuse(`it holds ${kindOf(parsed)}, not an object`);
  return parsed as JsonSchema;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
