// The library's messages speak of its options (`policy.deny`, `run({ sessionId })`,
// `diagnostics('x')`), which a user of the `muster` command never sets: the command's flags
// and subcommands stand for them. The library keeps its messages; the CLI says them in its
// own terms before printing them. Each entry is one phrase of a library message (kept in
// step by the CLI's error tests, which fail when a library term reaches stderr).

type Rewrite = readonly [RegExp, string | ((...groups: string[]) => string)];

const REWRITES: readonly Rewrite[] = [
  // policy decisions and refusals (tool-policy.ts)
  [/matched policy\.deny/g, 'matched --deny'],
  [/matched policy\.allow/g, 'matched --allow'],
  [
    /approval is required \(policy\.default 'ask'\) but no policy\.approve was configured/g,
    'approval is required (--default ask) and nobody can be asked here',
  ],
  [/policy\.default is '(\w+)'/g, (_m, d) => `--default ${d}`],
  [/policy\.default must be/g, '--default must be'],
  [/\bpolicy\.(allow|deny): /g, (_m, f) => `--${f}: `],
  // a stdio server that died: the CLI prints its stderr tail itself (server-stderr.ts)
  [/; its stderr is in diagnostics\('[^']*'\)/g, ''],
  // remote servers' declarations (url-policy.ts)
  [/use "auth" or "headers" instead/g, 'pass them with --header instead'],
  [/remove it from "headers"/g, 'leave out that --header'],
  // registry and sessions
  [
    /No MCP server is registered as '([^']*)': register it first, or check the name\./g,
    (_m, s) =>
      `No MCP server '${s}' in the project or user config: add it with 'muster mcp add ${s} ...' (see 'muster mcp list --no-connect').`,
  ],
  [
    /Session '([^']*)' does not exist: start it with run\(\{ sessionId \}\)\./g,
    (_m, s) => `Session '${s}' does not exist: start it with muster run "<prompt>" --session ${s}.`,
  ],
  [
    /Session '([^']*)' is (\w+): it has no run to resume; continue it with run\(\{ sessionId, input \}\)\./g,
    (_m, s, status) =>
      `Session '${s}' is ${status}: it has no run to resume; continue it with muster run "<prompt>" --session ${s}.`,
  ],
  // waits (wait-rules.ts)
  [
    /Session '([^']*)' has no wait '([^']*)': list its waits with agent\.sessions\.waits\(\{ sessionId \}\)\./g,
    (_m, s, w) =>
      `Session '${s}' has no wait '${w}': list its waits with muster sessions waits --session ${s}.`,
  ],
  [
    /Wait '([^']*)' of session '([^']*)' was already decided: a decision is taken once\. Resume the session to continue it\./g,
    (_m, w, s) =>
      `Wait '${w}' of session '${s}' was already decided: a decision is taken once. Continue the run with muster sessions resume ${s}.`,
  ],
  [
    /Wait '([^']*)' of session '([^']*)' expired: it can no longer be decided\. Resume the session; the expiry decides it \(waits\.onExpiry\)\./g,
    (_m, w, s) =>
      `Wait '${w}' of session '${s}' expired: it can no longer be decided. Continue the run with muster sessions resume ${s} (an expired approval is denied).`,
  ],
  [
    /list the waits again and decide the current one\./g,
    'list the waits again (muster sessions waits) and decide the current one.',
  ],
  // typed answers (final-answer.ts)
  [/raise outputRepairs, simplify the schema/g, 'simplify the schema'],
];

/** `text` (a library message) in the terms of the `muster` command: flags and commands. */
export function inCliTerms(text: string): string {
  let result = text;
  for (const [pattern, replacement] of REWRITES) {
    result =
      typeof replacement === 'string'
        ? result.replace(pattern, replacement)
        : result.replace(pattern, (...args: string[]) => replacement(...args));
  }
  return result;
}

/** Whether `text` names a flag (`--deny`) or a command (`muster mcp add`). */
export function namesFlagOrCommand(text: string): boolean {
  return /(^|[\s'"`(])--[a-z]/.test(text) || /\bmuster [a-z]/.test(text);
}
