import { MusterError } from '../errors/index.js';

/**
 * A policy pattern: an exact tool name, a glob with `*` (`mcp__srv__*`, `mcp__*`, `*`), a whole
 * server (`mcp__srv`), an MCP tool by its original name (`mcp__srv__search.v2`, any characters,
 * any length), a connection capability (`mcp_connect:srv`, `mcp_connect:*`), or a sampling
 * capability (`mcp_sampling:srv`, `mcp_sampling:*`). A backslash
 * makes the next character literal: `\*` is a star in the name, `\\` a backslash.
 */
export type Pattern = string;

/** What a pattern is matched against: a tool, or a connection to an MCP server. */
export type PolicySubject =
  | {
      readonly kind: 'tool';
      /** The model-facing name. */
      readonly name: string;
      /** The MCP server, for MCP tools. */
      readonly server?: string;
      /** The tool's own name on its server, when it differs from the model-facing one. */
      readonly originalName?: string;
    }
  | { readonly kind: 'connection'; readonly server: string }
  | { readonly kind: 'sampling'; readonly server: string };

/** A compiled pattern. */
export type PatternMatcher = (subject: PolicySubject) => boolean;

const CONNECT_PREFIX = 'mcp_connect:';
/** Model-facing names and globs over them (a model-facing name is at most 64 characters). */
const TOOL_PATTERN = /^[A-Za-z0-9_*-]{1,80}$/;
/** `mcp__<server>__<tool>`: the tool part may be any original name (escapes allowed). */
const MCP_TOOL_PATTERN = /^mcp__[A-Za-z0-9_*-]+?__[\s\S]+$/;
const CONNECT_PATTERN = /^mcp_connect:[A-Za-z0-9_*-]{1,24}$/;
const SAMPLING_PREFIX = 'mcp_sampling:';
const SAMPLING_PATTERN = /^mcp_sampling:[A-Za-z0-9_*-]{1,24}$/;
const WHOLE_SERVER = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)$/;

/** Compiles a glob (`*` is any text, `\x` the literal `x`); undefined when it ends in a lone `\`. */
function globToRegExp(glob: string): RegExp | undefined {
  let body = '';
  for (let i = 0; i < glob.length; i++) {
    let c = glob[i]!;
    if (c === '*') {
      body += '[\\s\\S]*';
      continue;
    }
    if (c === '\\') {
      if (i + 1 === glob.length) return undefined;
      c = glob[++i]!;
    }
    body += c.replace(/[-\\^$+?.()|[\]{}*/]/g, '\\$&');
  }
  return new RegExp(`^${body}$`);
}

/**
 * Compiles one pattern. Tool patterns match the model-facing name, and also
 * `mcp__<server>__<original name>` for MCP tools whose name had to be made safe. `mcp__srv`
 * matches every tool of server `srv`. Tool patterns never match connections, and
 * `mcp_connect:` patterns never match tools. Invalid patterns fail with `INVALID_CONFIGURATION`.
 */
export function compilePattern(pattern: Pattern): PatternMatcher {
  if (typeof pattern !== 'string') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `A policy pattern must be a string, got ${typeof pattern}.`,
    );
  }
  if (pattern.startsWith(CONNECT_PREFIX)) {
    if (!CONNECT_PATTERN.test(pattern)) throw invalid(pattern);
    const re = globToRegExp(pattern.slice(CONNECT_PREFIX.length))!;
    return (s) => s.kind === 'connection' && re.test(s.server);
  }
  if (pattern.startsWith(SAMPLING_PREFIX)) {
    if (!SAMPLING_PATTERN.test(pattern)) throw invalid(pattern);
    const re = globToRegExp(pattern.slice(SAMPLING_PREFIX.length))!;
    return (s) => s.kind === 'sampling' && re.test(s.server);
  }
  if (!TOOL_PATTERN.test(pattern) && !MCP_TOOL_PATTERN.test(pattern)) throw invalid(pattern);
  const re = globToRegExp(pattern);
  if (re === undefined) throw invalid(pattern);
  const server = WHOLE_SERVER.exec(pattern)?.[1];
  if (server !== undefined) {
    return (s) => s.kind === 'tool' && s.server === server;
  }
  const rest = pattern.startsWith('mcp__') ? pattern.slice('mcp__'.length) : undefined;
  const serverPart = rest === undefined ? undefined : rest.split('__')[0]!;
  if (rest === undefined || serverPart!.includes('*') || !rest.includes('__')) {
    // a plain glob (`*`, `mcp__*`, `read_*`): matched against the name, and for MCP tools also
    // against `mcp__<server>__<original name>`
    return (s) => {
      if (s.kind !== 'tool') return false;
      if (re.test(s.name)) return true;
      return (
        s.server !== undefined &&
        s.originalName !== undefined &&
        re.test(`mcp__${s.server}__${s.originalName}`)
      );
    };
  }
  // `mcp__<server>__<tool glob>`: the server must be exactly the subject's server (so
  // `mcp__github__*` never reaches a server named `github_`), then the tool part is globbed
  // against the model-facing tool part or the original name.
  const toolGlobs = new Map<string, RegExp | null>();
  return (s) => {
    if (s.kind !== 'tool') return false;
    if (s.server === undefined) return re.test(s.name);
    const prefix = `mcp__${s.server}__`;
    let glob = toolGlobs.get(prefix);
    if (glob === undefined) {
      glob = pattern.startsWith(prefix)
        ? (globToRegExp(pattern.slice(prefix.length)) ?? null)
        : null;
      toolGlobs.set(prefix, glob);
    }
    if (glob === null || !s.name.startsWith(prefix)) return false;
    return (
      glob.test(s.name.slice(prefix.length)) ||
      (s.originalName !== undefined && glob.test(s.originalName))
    );
  };
}

/** Compiles a list of patterns into one matcher that matches when any pattern does. */
export function compilePatterns(
  patterns: readonly Pattern[] | undefined,
  option: string,
): PatternMatcher {
  if (patterns === undefined) return () => false;
  if (!Array.isArray(patterns)) {
    throw new MusterError('INVALID_CONFIGURATION', `${option} must be an array of patterns.`);
  }
  const matchers = patterns.map((p) => {
    try {
      return compilePattern(p);
    } catch (err) {
      if (MusterError.isInstance(err)) {
        throw new MusterError('INVALID_CONFIGURATION', `${option}: ${err.message}`, { cause: err });
      }
      throw err;
    }
  });
  return (s) => matchers.some((m) => m(s));
}

function invalid(pattern: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `Invalid policy pattern ${JSON.stringify(pattern)}: use a tool name, a glob with '*' (mcp__server__*), a whole server (mcp__server), mcp__server__<original tool name> (a literal '*' written '\\*'), or mcp_connect:<server>.`,
    { details: { pattern } },
  );
}
