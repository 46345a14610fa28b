/**
 * The MCP servers and scripted models the studio's browser tests start the studio with, in
 * one place so a fixture's path or a tool's name is changed here only. Reference servers
 * come from npm (their bin, run with this Node.js); fixtures from `test/fixtures/mcp/`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScriptedTurnSpec } from '../../src/model/index.js';
import {
  everythingStdioConfig,
  filesystemStdioConfig,
  fixturePath,
  memoryStdioConfig,
} from './mcp-fixtures.js';
import type { StdioLaunch } from './mcp-fixtures.js';

/**
 * A secret that must never reach the page: put in a server's env and headers. Long and
 * random, so finding it anywhere means it leaked.
 */
export const CANARY = `canary-${randomUUID()}-${randomUUID()}`;

/** Lets the studio connect the project file's servers (they are the test's own). */
export const CONNECT_ALL: readonly string[] = ['--allow', 'mcp_connect:*'];

/** Every call runs without asking. */
export const ALLOW_ALL: readonly string[] = [...CONNECT_ALL, '--default', 'allow'];

/** Every call waits for a person (the Approvals page). */
export const ASK_ALL: readonly string[] = [...CONNECT_ALL, '--default', 'ask'];

/** `@modelcontextprotocol/server-everything` over stdio, with a canary in its env. */
export function everythingServer(): StdioLaunch {
  return { ...everythingStdioConfig(), env: { MUSTER_TEST_SECRET: CANARY } };
}

/** `@modelcontextprotocol/server-memory`, its graph in `dir/memory.json`. */
export function memoryServer(dir: string): StdioLaunch {
  mkdirSync(dir, { recursive: true });
  return memoryStdioConfig(join(dir, 'memory.json'));
}

/** `@modelcontextprotocol/server-filesystem` over `dir` (created, with one file in it). */
export function filesystemServer(dir: string): StdioLaunch {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'hello.txt'), 'Hello from the studio tests.\n');
  return filesystemStdioConfig(dir);
}

/**
 * `test/fixtures/mcp/live-resource-server.mjs`: `live://revision` reads `revision <n>`;
 * the tool `bump` makes it the next revision and announces the update; `crash` exits.
 */
export const LIVE_RESOURCE = { server: 'live', uri: 'live://revision' } as const;

/** The fixture of {@link LIVE_RESOURCE}. */
export function liveResourceServer(): StdioLaunch {
  return { command: process.execPath, args: [fixturePath('live-resource-server.mjs')] };
}

/** `test/fixtures/mcp/basic-server.mjs`: tools `echo` and `add` (as a JSON config for the register form). */
export function basicServer(): StdioLaunch {
  return { command: process.execPath, args: [fixturePath('basic-server.mjs')] };
}

/** `test/fixtures/mcp/gated-server.mjs`: fails to start until the file `gate` exists. */
export function gatedServer(gate: string): StdioLaunch {
  return { command: process.execPath, args: [fixturePath('gated-server.mjs'), `--gate=${gate}`] };
}

/** `test/fixtures/mcp/form-server.mjs`: `signup {}` elicits `{ name, age, plan, newsletter }`. */
export function formServer(): StdioLaunch {
  return { command: process.execPath, args: [fixturePath('form-server.mjs')] };
}

/**
 * `test/fixtures/mcp/apps-server.mjs`: `show-greeting {name}` has a `ui://` view (MCP Apps)
 * whose button calls the app-only tool `stamp` through the host and shows the answer.
 */
export const APPS = {
  server: 'apps',
  /** The tool that declares the view, and the arguments it is called with. */
  viewTool: 'show-greeting',
  viewArgs: { name: 'Ada' },
  /** The tool the view's button calls through the studio's policy. */
  calledTool: 'stamp',
  /** Inside the view (element ids of the fixture's page). */
  status: '#view-status',
  result: '#view-result',
  button: '#view-stamp',
  answer: '#view-stamp-result',
  /** What the view shows: connected, the tool's result, then the called tool's answer. */
  resultText: 'Hello, Ada!',
  answerText: /^stamped: Ada #1$/,
} as const;

/** The MCP Apps fixture server. */
export function appsServer(): StdioLaunch {
  return { command: process.execPath, args: [fixturePath('apps-server.mjs')] };
}

/** A Streamable HTTP server entry, with a canary header the studio must never show. */
export function httpServer(url: string): Record<string, unknown> {
  return { type: 'http', url, headers: { 'X-Api-Key': CANARY } };
}

/** The OAuth world's protected MCP server (test/fixtures/oauth): needs a sign-in. */
export function oauthServer(mcpUrl: string): Record<string, unknown> {
  return { type: 'http', url: mcpUrl };
}

/** A call of the scripted model. */
function call(name: string, args: object): ScriptedTurnSpec {
  return { toolCalls: [{ name, arguments: args }] };
}

/** The run of the approvals test: two calls of server-everything, one after the other. */
export const APPROVAL_RUN = {
  prompt: 'Echo a word, then add two numbers.',
  /** Allowed from the Approvals page. */
  first: { tool: 'echo', modelName: 'mcp__everything__echo', args: { message: 'studio-first' } },
  /** Denied from the Approvals page. */
  second: { tool: 'get-sum', modelName: 'mcp__everything__get-sum', args: { a: 20, b: 22 } },
  finalText: 'Both calls are done.',
} as const;

/** The scripted turns of {@link APPROVAL_RUN}. */
export function approvalRunTurns(): ScriptedTurnSpec[] {
  return [
    call(APPROVAL_RUN.first.modelName, APPROVAL_RUN.first.args),
    call(APPROVAL_RUN.second.modelName, APPROVAL_RUN.second.args),
    { text: APPROVAL_RUN.finalText },
  ];
}

/**
 * The runs of the live-run test: first a turn that says something, then calls `echo`
 * (waiting for approval) and is redirected; then a run calling the long-running operation
 * (allowed without asking), whose progress the timeline shows.
 */
export const LIVE_RUN = {
  prompt: 'Say what you do, then echo a word.',
  firstText: 'Let me echo the word first.',
  echo: { tool: 'echo', modelName: 'mcp__everything__echo', args: { message: 'live-run' } },
  redirect: 'Do not echo anything; just say you were redirected.',
  afterRedirect: 'I was redirected, so I did not echo.',
  progressPrompt: 'Run the long operation.',
  longRunning: {
    tool: 'trigger-long-running-operation',
    modelName: 'mcp__everything__trigger-long-running-operation',
    args: { duration: 3, steps: 3 },
  },
  afterProgress: 'The long operation is done.',
} as const;

/** Asks for every call but the long-running operation (see {@link LIVE_RUN}). */
export const ASK_ALL_BUT_LONG_RUNNING: readonly string[] = [
  ...ASK_ALL,
  '--allow',
  LIVE_RUN.longRunning.modelName,
];

/** The scripted turns of {@link LIVE_RUN}. */
export function liveRunTurns(): ScriptedTurnSpec[] {
  return [
    {
      text: LIVE_RUN.firstText,
      toolCalls: [{ name: LIVE_RUN.echo.modelName, arguments: LIVE_RUN.echo.args }],
    },
    { text: LIVE_RUN.afterRedirect },
    call(LIVE_RUN.longRunning.modelName, LIVE_RUN.longRunning.args),
    { text: LIVE_RUN.afterProgress },
  ];
}

/**
 * `test/fixtures/mcp/big-result-server.mjs`: `big {kib}` answers exactly `kib` KiB of text
 * (`bigText(kib)` of the fixture data), archived by the studio over the 16 KiB threshold.
 */
export const BIG_RESULT = {
  server: 'big',
  tool: 'big',
  modelName: 'mcp__big__big',
  /** From the Tools page: two pages of the studio's pager (64 KiB each). */
  toolsKib: 100,
  /** From a run: one page. */
  runKib: 40,
  prompt: 'Fetch the big text.',
  finalText: 'I read the big text.',
} as const;

/** The big-result fixture server. */
export function bigResultServer(): StdioLaunch {
  return { command: process.execPath, args: [fixturePath('big-result-server.mjs')] };
}

/** The run of the archive test: one call of `big`, then the answer. */
export function bigResultRunTurns(): ScriptedTurnSpec[] {
  return [call(BIG_RESULT.modelName, { kib: BIG_RESULT.runKib }), { text: BIG_RESULT.finalText }];
}
