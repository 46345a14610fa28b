// @ts-check
// Dependency rules of src (SPEC section 2), checked by `npm run lint` and by
// test/lint/dependency-rules.test.ts. Paths are relative to the directory depcruise runs in.

/** Tests beside the code may cross folders (they are not part of the library). */
const NOT_TESTS = ['\\.test\\.ts$'];

/**
 * One rule: files under `<within>/<from>/` may import, of the folders of `within`, only their
 * own and those in `allowed`. For `src`, anything else in src is refused; for a folder with
 * rooms (src/mcp), other rooms are (the entry files at its root have a rule of their own).
 * @param {string} from
 * @param {readonly string[]} allowed
 * @param {string} [within]
 * @returns {import('dependency-cruiser').IForbiddenRuleType}
 */
function onlyImports(from, allowed, within = 'src') {
  const ok = [from, ...allowed].join('|');
  const room = within !== 'src';
  return {
    name: `${room ? `${within.slice('src/'.length)}-` : ''}${from}-imports-only-${allowed.length > 0 ? allowed.join('-') : 'itself'}`,
    comment: `${within}/${from} may import only ${allowed.length > 0 ? allowed.map((f) => `${within}/${f}`).join(', ') : 'itself'}${room ? ` of ${within}: its rooms import one way, sideways-down` : ''} (SPEC section 2).`,
    severity: 'error',
    from: { path: `^${within}/${from}/`, pathNot: NOT_TESTS },
    to: { path: room ? `^${within}/[^/]+/` : `^${within}/`, pathNot: [`^${within}/(${ok})/`] },
  };
}

/**
 * The rooms of src/mcp (SPEC section 2), top floor first: a room may import the rooms on the
 * floors below its own, never one on its floor or above (SPEC's "sideways-down": imports point
 * one way, and rooms side by side on one floor do not import each other). The entry files at
 * src/mcp's root sit above every room. `tasks/` (the Tasks extension's client) sits above
 * `handlers/`, whose elicitation and sampling paths answer a task's input requests.
 */
const MCP_FLOORS = [
  ['operations'],
  ['connection'],
  ['tasks'],
  ['handlers'],
  ['client'],
  ['config'],
  ['transports'],
  ['contracts'],
  ['failures', 'servers'],
];

/** Every room of src/mcp with the rooms it may import. */
const MCP_ROOMS = MCP_FLOORS.flatMap((floor, i) =>
  floor.map((room) => /** @type {const} */ ([room, MCP_FLOORS.slice(i + 1).flat()])),
);

/** A file in one of the rooms of src/mcp that have a floor. */
const KNOWN_ROOM = `^src/mcp/(${MCP_FLOORS.flat().join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
const config = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere in src, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import resolves (so no rule passes because a file was not found).',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    onlyImports('errors', []),
    onlyImports('util', ['errors']),
    onlyImports('policy', ['errors', 'util']),
    onlyImports('model', ['errors', 'util']),
    onlyImports('providers', ['model', 'errors', 'util']),
    onlyImports('session', ['model', 'errors', 'util']),
    onlyImports('auth', ['errors', 'util']),
    onlyImports('worker', ['agent', 'session', 'errors', 'util']),
    {
      name: 'worker-only-from-its-entry',
      comment:
        'src/worker (muster-agent/worker, on the optional peer pg-boss) is reached only by its subpath and by the muster command (src/cli, whose `muster worker` loads it): nothing else in src imports it; the agent and the session stores never know a worker (a store calls a hook the worker registers).',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/worker/', '^src/cli/', ...NOT_TESTS] },
      to: { path: '^src/worker/' },
    },
    onlyImports('query', ['agent', 'mcp', 'tools', 'policy', 'model', 'errors', 'util']),
    onlyImports('studio', [
      'agent',
      'mcp',
      'tools',
      'policy',
      'auth',
      'session',
      'model',
      'errors',
      'util',
    ]),
    ...MCP_ROOMS.map(([room, allowed]) => onlyImports(room, allowed, 'src/mcp')),
    {
      name: 'mcp-rooms-not-root',
      comment:
        "A room of src/mcp never imports the entry files at src/mcp's root (McpClientManager, the agent.mcp facade, the builder, index.ts, mcp-entry.ts): they sit above every room.",
      severity: 'error',
      from: { path: '^src/mcp/[^/]+/', pathNot: NOT_TESTS },
      to: { path: '^src/mcp/[^/]+\\.ts$' },
    },
    {
      name: 'mcp-rooms-known',
      comment:
        'Every file under src/mcp sits at its root (the entry files) or in a room that has its floor in MCP_FLOORS: a new room gets its place in the order first. Reported for what such a file imports and for what imports it.',
      severity: 'error',
      from: {
        path: '^src/mcp/[^/]+/',
        pathNot: [KNOWN_ROOM, ...NOT_TESTS],
      },
      to: {},
    },
    {
      name: 'mcp-rooms-known-imported',
      comment:
        'Nothing imports a file under src/mcp outside the entry files and the rooms that have their floor in MCP_FLOORS.',
      severity: 'error',
      from: { path: '^src/', pathNot: NOT_TESTS },
      to: {
        path: '^src/mcp/[^/]+/',
        pathNot: [KNOWN_ROOM],
      },
    },
    {
      name: 'tools-not-mcp-agent-context-session-providers',
      comment:
        'src/tools may use policy, model, errors and util; never mcp, agent, context, session or providers.',
      severity: 'error',
      from: { path: '^src/tools/', pathNot: NOT_TESTS },
      to: { path: '^src/(mcp|agent|context|session|providers)/' },
    },
    {
      name: 'context-not-agent-mcp-providers',
      comment: 'src/context never imports agent, mcp or providers.',
      severity: 'error',
      from: { path: '^src/context/', pathNot: NOT_TESTS },
      to: { path: '^src/(agent|mcp|providers)/' },
    },
    {
      name: 'mcp-not-agent-providers',
      comment:
        'MCP reaches the agent only as a ToolExecutor and the facade: src/mcp never imports agent or providers.',
      severity: 'error',
      from: { path: '^src/mcp/', pathNot: NOT_TESTS },
      to: { path: '^src/(agent|providers)/' },
    },
    {
      name: 'providers-only-from-providers',
      comment:
        'Providers are optional integrations reached only by their subpath: nothing else in src imports them, but the muster command (src/cli), which loads the one its --model names.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/providers/', '^src/cli/', ...NOT_TESTS] },
      to: { path: '^src/providers/' },
    },
    {
      name: 'agent-only-from-root',
      comment:
        'Only the package root (src/index.ts), the query() facade (src/query), the studio (src/studio), the workers (src/worker) and the muster command (src/cli), clients of the agent, import the agent.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: [
          '^src/agent/',
          '^src/query/',
          '^src/studio/',
          '^src/cli/',
          '^src/worker/',
          '^src/index\\.ts$',
          ...NOT_TESTS,
        ],
      },
      to: { path: '^src/agent/' },
    },
    {
      name: 'agent-tracing-only-from-runtime',
      comment:
        "src/agent/tracing is reached only by the runtime's construction (src/agent/runtime-parts.ts): the loop, the scope and the facade see the run observer they declare (src/agent/run-observer.ts), never the tracing behind it.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/agent/tracing/', '^src/agent/runtime-parts\\.ts$'] },
      to: { path: '^src/agent/tracing/' },
    },
    {
      name: 'root-barrel-not-imported',
      comment: 'src/index.ts is the public face for users; code in src never imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: NOT_TESTS },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'src-not-tests-or-tools',
      comment:
        'The library never imports tests, fixtures, benchmarks, examples or conformance code.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|examples|conformance)/' },
    },
    {
      name: 'folder-internals-through-index',
      comment:
        "A folder's public face is its index.ts: other folders import src/<folder>/index.ts, never its other files (type-only imports included).",
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: ['^src/cli/', ...NOT_TESTS] },
      to: {
        path: '^src/[^/]+/.+',
        pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'cli-through-index-and-entries',
      comment:
        'The muster command imports other folders through their index.ts, or the subpath entry files it loads on demand (providers, SQLite and PostgreSQL stores) with a dynamic import().',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: NOT_TESTS },
      to: {
        path: '^src/(?!cli/)[^/]+/.+',
        pathNot: [
          '^src/[^/]+/index\\.ts$',
          '^src/providers/(openai|anthropic|ai-sdk)\\.ts$',
          '^src/session/(sqlite|postgres)\\.ts$',
        ],
      },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['node_modules', '^dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};

export default config;
