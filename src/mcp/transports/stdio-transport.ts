import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { MusterError } from '../../errors/index.js';
import type { McpSandbox, McpStdioServerConfig } from '../config-types.js';
import { StderrRing } from './stderr-ring.js';
import type { TransportContext, TransportHandle } from './transport-types.js';

/** A valid environment variable name for `spawn`: no `=`, no NUL, not empty. */
const ENV_NAME = /^[^=\0]+$/;

function invalid(server: string, message: string, details: Record<string, unknown> = {}) {
  return new MusterError('INVALID_CONFIGURATION', message, { details: { server, ...details } });
}

/** Checks what `spawn` would otherwise reject late or misread. Values are never printed. */
function checkStdioConfig(server: string, config: McpStdioServerConfig): void {
  if (typeof config.command !== 'string' || config.command.trim() === '') {
    throw invalid(server, `Server "${server}" needs a "command" to run`);
  }
  for (const arg of config.args ?? []) {
    if (typeof arg !== 'string' || arg.includes('\0')) {
      throw invalid(server, `Server "${server}" has an argument that is not a plain string`);
    }
  }
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (!ENV_NAME.test(name) || typeof value !== 'string' || value.includes('\0')) {
      throw invalid(
        server,
        `Server "${server}" declares env variable ${JSON.stringify(name)} with an invalid name or value: use a name without "=" and a string value`,
        { variable: name },
      );
    }
  }
  const max = config.maxBufferSize;
  if (max !== undefined && (!Number.isSafeInteger(max) || max <= 0)) {
    throw invalid(server, `Server "${server}" has a maxBufferSize that is not a positive integer`);
  }
}

/**
 * The spawn parameters of a stdio server: its own command, or the sandbox launcher with
 * the command and its arguments appended (`sandbox.command ...sandbox.args command ...args`).
 * `env` is exactly the declared one; the official client merges it over its safe defaults
 * (`getDefaultEnvironment()`: HOME, LOGNAME, PATH, SHELL, TERM, USER on POSIX) and passes
 * nothing else of `process.env`. No shell is involved.
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
 * Builds the official `StdioClientTransport` for a stdio server (not started: `connect`
 * spawns it). stderr is piped and drained into a ring of `ctx.stderrBytes` bytes, readable
 * with `stderrTail()` and never logged. With `ctx.sandbox`, the launcher wraps the command;
 * the client's protocol probe spawns its throwaway sibling from the same parameters, so the
 * sandbox wraps that process too. The transport is the client's own class, unwrapped: the
 * probe only runs on a sibling for exactly that class. `close()` reaps the child.
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
      throw invalid(ctx.server, 'mcp.sandbox needs a "command" (the launcher to run)');
    }
  }
  const transport = new StdioClientTransport(stdioServerParameters(config, ctx.sandbox));
  const ring = new StderrRing(ctx.stderrBytes);
  ring.drain(transport.stderr);
  return { transport, stderrTail: () => ring.tail() };
}
