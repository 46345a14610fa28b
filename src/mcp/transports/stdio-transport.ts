import type { StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { MusterError } from '../../errors/index.js';
import type { McpSandbox, McpStdioServerConfig } from '../contracts/config-types.js';
import { checkStdioConfig } from './stdio-checks.js';
import { StdioProcessTransport } from './stdio-process.js';
import { TaskCapture } from './task-capture.js';
import type { TransportContext, TransportHandle } from '../contracts/transport-types.js';

/**
 * The spawn parameters of a stdio server: its own command, or the sandbox launcher with
 * the command and its arguments appended (`sandbox.command ...sandbox.args command ...args`).
 * `env` is exactly the declared one; it is merged over the official client's safe defaults
 * (`getDefaultEnvironment()`: HOME, LOGNAME, PATH, SHELL, TERM, USER on POSIX) and nothing
 * else of `process.env` is passed. No shell is involved.
 */
export function stdioServerParameters(
  config: McpStdioServerConfig,
  sandbox?: McpSandbox,
): StdioServerParameters {
  const own = { command: config.command, args: [...(config.args ?? [])] };
  const launch =
    sandbox === undefined
      ? own
      : { command: sandbox.command, args: [...(sandbox.args ?? []), own.command, ...own.args] };
  return {
    ...launch,
    env: { ...(config.env ?? {}) },
    stderr: 'pipe',
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    ...(config.maxBufferSize === undefined ? {} : { maxBufferSize: config.maxBufferSize }),
  };
}

/**
 * Builds the transport of a stdio server (not started: `connect` spawns it), Muster's own
 * {@link StdioProcessTransport}: stderr drained into a ring of `ctx.stderrBytes` bytes
 * (`stderrTail()`, never logged), each message bounded by the server's `maxBufferSize` or else
 * `ctx.maxResponseBytes`, the exit kept (`exit()`), and `terminate()` to stop the child at once.
 * With `ctx.sandbox`, the launcher wraps the command. `close()` reaps the child.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a missing command, bad env or buffer size.
 */
export function createStdioTransport(
  config: McpStdioServerConfig,
  ctx: TransportContext,
): TransportHandle {
  checkStdioConfig(ctx.server, config);
  if (ctx.sandbox !== undefined) {
    const sandbox = ctx.sandbox;
    if (typeof sandbox.command !== 'string' || sandbox.command.trim() === '') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'mcp.sandbox needs a "command" (the launcher to run)',
        {
          details: { server: ctx.server, field: 'mcp.sandbox.command' },
        },
      );
    }
  }
  const params = stdioServerParameters(config, ctx.sandbox);
  const transport = new StdioProcessTransport({
    server: ctx.server,
    command: params.command,
    args: params.args ?? [],
    env: params.env ?? {},
    ...(params.cwd === undefined ? {} : { cwd: params.cwd }),
    maxMessageBytes: config.maxBufferSize ?? ctx.maxResponseBytes,
    boundOption: config.maxBufferSize === undefined ? 'mcp.maxResponseBytes' : 'maxBufferSize',
    stderrBytes: ctx.stderrBytes,
  });
  const tasks = new TaskCapture();
  tasks.attach(transport);
  return {
    transport,
    tasks,
    stderrTail: () => transport.stderrTail(),
    exit: () => transport.exit,
    pid: () => transport.pid,
    terminate: () => transport.terminate(),
  };
}
