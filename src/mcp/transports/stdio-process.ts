import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { SdkError, SdkErrorCode, serializeMessage } from '@modelcontextprotocol/client';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { McpError } from '../../errors/index.js';
import type { McpTransportFailureReason } from '../../errors/index.js';
import type { ProcessExit } from '../failures/exit-status.js';
import { BoundedLineReader } from './line-reader.js';
import type { OversizedLine } from './line-reader.js';
import { decodeMessageLine } from './message-decode.js';
import { StderrRing } from './stderr-ring.js';

/** What starting a stdio server needs. */
export interface StdioProcessOptions {
  /** The server's registry name (for error messages). */
  readonly server: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the client's safe default environment; nothing else of `process.env` passes. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The largest message read from the child, in bytes. */
  readonly maxMessageBytes: number;
  /** The option that set `maxMessageBytes`, named in errors: the server's own, or the default. */
  readonly boundOption: 'maxBufferSize' | 'mcp.maxResponseBytes';
  /** Bytes of stderr kept for diagnostics; 0 discards stderr. */
  readonly stderrBytes: number;
}

/** How long a child may take to exit after its stdin closes, then after SIGTERM (graceful close). */
const CLOSE_GRACE_MS = 2000;
/** How long a child may take to exit after SIGTERM when it is stopped at once (an abort). */
const KILL_GRACE_MS = 1000;
/** After `exit`, how long output still in the pipes may take to arrive before the end is reported. */
const DRAIN_MS = 200;

/**
 * A stdio MCP transport that owns its child process (Muster's own, replacing the official
 * client's `StdioClientTransport`): spawned without a shell, with the client's safe default
 * environment plus the declared one; stderr drained into a ring; each message from the child
 * bounded by `maxMessageBytes` (a larger one is skipped, not buffered, and the request it
 * answers fails with `response-too-large`, while the connection goes on); the exit code or
 * signal kept; `terminate()` stops the child at once (an abort), `close()` gracefully (stdin
 * closed, then SIGTERM, then SIGKILL).
 *
 * It has `pid` and `stderr`, so the official client treats it as a stdio transport.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Told of an answer over the bound to the request of JSON-RPC `id`, before the client is
   * given an error answer for it (so the request settles and its timer stops).
   */
  onOversizedAnswer?: (id: number | string, error: McpError) => void;

  #child: ChildProcess | undefined;
  #exit: ProcessExit | undefined;
  /** Set by `terminate()`: the child is being stopped, `close()` does not wait for it. */
  #terminated: Promise<void> | undefined;
  #ended = false;
  #exited: Promise<void> | undefined;
  readonly #ring: StderrRing;
  readonly #reader: BoundedLineReader;

  constructor(private readonly options: StdioProcessOptions) {
    this.#ring = new StderrRing(options.stderrBytes);
    this.#reader = new BoundedLineReader(
      options.maxMessageBytes,
      (line) => this.#line(line),
      (line) => this.#oversized(line),
    );
  }

  /** The child's pid once started. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** The child's stderr stream (drained into the ring), once started. */
  get stderr(): Readable | null {
    return this.#child?.stderr ?? null;
  }

  /** How the child ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** The latest stderr text, for diagnostics only (never logged). */
  stderrTail(): string {
    return this.#ring.tail();
  }

  /** Spawns the child; rejects with `MCP_CONNECTION_FAILED` when it cannot be started. */
  async start(): Promise<void> {
    if (this.#child) throw new Error('StdioProcessTransport already started');
    const { server, cwd } = this.options;
    if (cwd !== undefined) await checkCwd(server, cwd);
    const child = spawn(this.options.command, [...this.options.args], {
      env: { ...getDefaultEnvironment(), ...this.options.env },
      stdio: ['pipe', 'pipe', this.options.stderrBytes > 0 ? 'pipe' : 'ignore'],
      shell: false,
      windowsHide: true,
      ...(cwd === undefined ? {} : { cwd }),
    });
    this.#child = child;
    this.#ring.drain(child.stderr);
    child.stdout?.on('data', (chunk: Buffer) => this.#reader.push(chunk));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.once('exit', (code, signal) => {
      this.#exit = { code, signal };
      // output still in the pipes arrives before `close`; a grandchild holding them open
      // must not hide the exit, so the end is reported after a short wait at most
      setTimeout(() => this.#end(), DRAIN_MS).unref();
    });
    child.once('close', () => this.#end());
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        this.#exited = new Promise<void>((done) => {
          if (this.#exit !== undefined) done();
          else child.once('exit', () => done());
        });
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        reject(spawnFailure(server, this.options.command, error));
        this.#end();
      });
    });
    child.on('error', (error) => this.onerror?.(error));
  }

  /** Writes one message to the child's stdin. */
  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#ended || stdin.destroyed)
      throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    if (!stdin.write(serializeMessage(message)))
      await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  /** Closes gracefully: stdin closed, SIGTERM after a grace period, SIGKILL after another. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child && this.#exited && this.#exit === undefined && !this.#terminated) {
      child.stdin?.end();
      if (!(await this.#exitWithin(CLOSE_GRACE_MS))) {
        child.kill('SIGTERM');
        if (!(await this.#exitWithin(CLOSE_GRACE_MS))) {
          child.kill('SIGKILL');
          await this.#exitWithin(CLOSE_GRACE_MS);
        }
      }
    }
    this.#end();
  }

  /**
   * Stops the child at once (an abort, a connect that gave up): stdin closed and SIGTERM now,
   * SIGKILL when it has not exited within a second. Reports the end at once; the returned
   * promise settles when the child has exited. A `close()` after it does not wait again.
   */
  terminate(): Promise<void> {
    if (this.#terminated) return this.#terminated;
    const child = this.#child;
    this.#end();
    if (!child || !this.#exited || this.#exit !== undefined) return Promise.resolve();
    child.kill('SIGTERM');
    this.#terminated = this.#exitWithin(KILL_GRACE_MS).then(async (exited) => {
      if (exited) return;
      child.kill('SIGKILL');
      await this.#exitWithin(KILL_GRACE_MS);
    });
    return this.#terminated;
  }

  async #exitWithin(ms: number): Promise<boolean> {
    if (this.#exit !== undefined || !this.#exited) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const exited = await Promise.race([this.#exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return exited;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reader.clear();
    const child = this.#child;
    child?.stdout?.destroy();
    child?.stdin?.destroy();
    this.onclose?.();
  }

  #line(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = decodeMessageLine(line);
    } catch (error) {
      // a line that is not JSON (a log line on stdout) is skipped, as the official client does
      if (!(error instanceof SyntaxError)) this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  #oversized(line: OversizedLine): void {
    const error = messageTooLarge(this.options, line.bytes);
    if (line.id === undefined || line.batch) {
      this.onerror?.(error);
      return;
    }
    if (line.hasMethod) {
      // a request of the server too large to read: it is answered, so it does not wait forever
      this.onerror?.(error);
      void this.send({
        jsonrpc: '2.0',
        id: line.id,
        error: { code: -32600, message: error.message },
      }).catch(() => undefined);
      return;
    }
    // a watching connection fails the request itself (PendingRequests); else answer it here
    if (this.onOversizedAnswer) return this.onOversizedAnswer(line.id, error);
    this.onmessage?.({
      jsonrpc: '2.0',
      id: line.id,
      error: { code: -32603, message: error.message },
    });
  }
}

/** The error of a message over the bound: the server answered, its answer was too large. */
function messageTooLarge(options: StdioProcessOptions, bytes: number): McpError {
  const { server, maxMessageBytes: limit, boundOption: option } = options;
  return new McpError(
    'MCP_OPERATION_FAILED',
    `Server "${server}" sent a message of ${bytes} bytes, which exceeds ${option === 'maxBufferSize' ? `its maxBufferSize` : option} (${limit} bytes): raise the limit or ask the server for less`,
    {
      server,
      details: {
        server,
        reason: 'response-too-large' satisfies McpTransportFailureReason,
        bytes,
        limit,
        option,
        unit: 'message',
      },
    },
  );
}

/** A `cwd` that is not a directory fails here, not as a misleading "command not found". */
async function checkCwd(server: string, cwd: string): Promise<void> {
  const isDirectory = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDirectory)
    throw new McpError(
      'MCP_CONNECTION_FAILED',
      `Server '${server}' could not be started: its cwd ${JSON.stringify(cwd)} is not an existing directory. Fix "cwd" in its declaration.`,
      { server, details: { server, reason: 'spawn-failed', field: 'cwd' } },
    );
}

/** Why a child could not be spawned, on its errno. */
function spawnFailure(server: string, command: string, error: NodeJS.ErrnoException): McpError {
  const what =
    error.code === 'ENOENT'
      ? `the command ${JSON.stringify(command)} was not found`
      : error.code === 'EACCES'
        ? `the command ${JSON.stringify(command)} is not executable`
        : `spawning ${JSON.stringify(command)} failed`;
  return new McpError(
    'MCP_CONNECTION_FAILED',
    `Server '${server}' could not be started: ${what}${error.code ? ` (${error.code})` : ''}. Check "command" in its declaration.`,
    {
      server,
      cause: error,
      details: {
        server,
        reason: 'spawn-failed',
        field: 'command',
        ...(error.code ? { errno: error.code } : {}),
      },
    },
  );
}
