// @ts-check
// Dependency rules of src (SPEC section 2), checked by `npm run lint` and by
// test/lint/dependency-rules.test.ts. Paths are relative to the directory depcruise runs in.

/** Tests beside the code may cross folders (they are not part of the library). */
const NOT_TESTS = ['\\.test\\.ts$'];

/**
 * One rule: files under `src/<from>/` may import, of our own code, only `src/<folder>/` for
 * the folders in `allowed` (and their own folder).
 * @param {string} from
 * @param {string[]} allowed
 * @returns {import('dependency-cruiser').IForbiddenRuleType}
 */
function onlyImports(from, allowed) {
  const ok = [from, ...allowed].join('|');
  return {
    name: `${from}-imports-only-${allowed.length > 0 ? allowed.join('-') : 'itself'}`,
    comment: `src/${from} may import only ${allowed.length > 0 ? allowed.map((f) => `src/${f}`).join(', ') : 'itself'} (SPEC section 2).`,
    severity: 'error',
    from: { path: `^src/${from}/`, pathNot: NOT_TESTS },
    to: { path: '^src/', pathNot: [`^src/(${ok})/`] },
  };
}

/**
 * The rooms of src/mcp (SPEC section 2), each with the rooms below it that it may import:
 * imports point one way, sideways-down. The entry files at src/mcp's root sit above every
 * room. `tasks/` gets its place when the Tasks extension lands in it.
 * @type {ReadonlyArray<readonly [string, readonly string[]]>}
 */
const MCP_ROOMS = [
  [
    'operations',
    [
      'connection',
      'handlers',
      'client',
      'config',
      'transports',
      'contracts',
      'failures',
      'servers',
    ],
  ],
  [
    'connection',
    ['handlers', 'client', 'config', 'transports', 'contracts', 'failures', 'servers'],
  ],
  ['handlers', ['client', 'config', 'transports', 'contracts', 'failures', 'servers']],
  ['client', ['config', 'transports', 'contracts', 'failures', 'servers']],
  ['config', ['transports', 'contracts', 'failures', 'servers']],
  ['transports', ['contracts', 'failures', 'servers']],
  ['contracts', ['failures', 'servers']],
  ['failures', []],
  ['servers', []],
];

/**
 * One rule: files under `src/mcp/<room>/` may import, of the rooms of src/mcp, only their
 * own and those in `allowed`.
 * @param {string} room
 * @param {readonly string[]} allowed
 * @returns {import('dependency-cruiser').IForbiddenRuleType}
 */
function mcpRoomImports(room, allowed) {
  const ok = [room, ...allowed].join('|');
  return {
    name: `mcp-${room}-imports-only-${allowed.length > 0 ? allowed.join('-') : 'itself'}`,
    comment: `src/mcp/${room} may import, of the rooms of src/mcp, only ${allowed.length > 0 ? allowed.map((r) => `src/mcp/${r}`).join(', ') : 'itself'}: the rooms import one way, sideways-down (SPEC section 2).`,
    severity: 'error',
    from: { path: `^src/mcp/${room}/`, pathNot: NOT_TESTS },
    to: { path: '^src/mcp/[^/]+/', pathNot: [`^src/mcp/(${ok})/`] },
  };
}

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
    ...MCP_ROOMS.map(([room, allowed]) => mcpRoomImports(room, allowed)),
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
        'Every file under src/mcp sits at its root (the entry files) or in a room that has its place in the one-way order above: a new room gets its rule first.',
      severity: 'error',
      from: {
        path: '^src/mcp/[^/]+/',
        pathNot: [`^src/mcp/(${MCP_ROOMS.map(([r]) => r).join('|')})/`, ...NOT_TESTS],
      },
      to: {},
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
        'Only the package root (src/index.ts), the query() facade (src/query), the studio (src/studio) and the muster command (src/cli), clients of the agent, import the agent.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: [
          '^src/agent/',
          '^src/query/',
          '^src/studio/',
          '^src/cli/',
          '^src/index\\.ts$',
          ...NOT_TESTS,
        ],
      },
      to: { path: '^src/agent/' },
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
