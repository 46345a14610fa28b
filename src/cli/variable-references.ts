import { MusterError } from '../errors/index.js';

// Muster never interpolates variables in MCP declarations (SPEC 7.1). Other tools do
// (`${VAR}`, `${VAR:-default}`, `${env:VAR}`, `${input:id}`, `${workspaceFolder}`), so an
// imported entry that holds one would reach the server as that literal text: the import finds
// them to skip the entry, and reports where they are by name only, never a value.

/** One field of an entry that holds `${...}`: its path and the variables it names. */
export interface VariableUse {
  /** The field's path in the entry, e.g. `env.TOKEN`, `args[2]`, `headers.Authorization`. */
  readonly field: string;
  /** The variables' names (`GITHUB_TOKEN`, `input:api-key`); never a default or a value. */
  readonly variables: readonly string[];
}

/** Deeper than any declaration nests (records of strings a few levels down). */
const MAX_DEPTH = 16;

/**
 * The name a `${` reference starts with: a shell-style name (a default after `:-`, `-`, `:=`,
 * `:?` is cut off, it may be a value) with an optional `prefix:` (`env:`, `input:`).
 */
function referenceName(afterBrace: string): string {
  const match = /^\s*([A-Za-z_]\w*(?::[A-Za-z_][\w.-]*)?)/.exec(afterBrace);
  return match?.[1] ?? '(unnamed)';
}

/** The names of the `${` references in `text`, in order, without repeats. */
export function variableNames(text: string): string[] {
  const names: string[] = [];
  for (let at = text.indexOf('${'); at !== -1; at = text.indexOf('${', at + 2)) {
    const name = referenceName(text.slice(at + 2));
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

function keyPath(path: string, key: string): string {
  const safe = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return path === '' ? safe : `${path}.${safe}`;
}

/**
 * Every string of `value` (object keys included) that holds `${`, as its field path and the
 * variables it names. Empty when the entry can be imported as it is.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a value nested deeper than a declaration can.
 */
export function findVariableUses(value: unknown, path = '', depth = 0): VariableUse[] {
  if (depth > MAX_DEPTH)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `An MCP server entry nests deeper than ${MAX_DEPTH} levels at ${path}: declarations hold strings, lists and records of strings.`,
      { details: { field: path } },
    );
  if (typeof value === 'string') {
    const variables = variableNames(value);
    return variables.length > 0 ? [{ field: path === '' ? '(value)' : path, variables }] : [];
  }
  if (Array.isArray(value))
    return value.flatMap((v, i) => findVariableUses(v, `${path}[${i}]`, depth + 1));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => {
    const field = keyPath(path, key);
    const inKey = variableNames(key);
    const own = inKey.length > 0 ? [{ field, variables: inKey }] : [];
    return [...own, ...findVariableUses(v, field, depth + 1)];
  });
}
