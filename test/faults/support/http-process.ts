/**
 * HTTP servers run as their own processes, so a case can kill one with SIGKILL (the kernel
 * closes its sockets, as in a real crash) and start a new one on the same port: the faulty
 * fixture (`faulty-http.mjs` as a process) and the reference server-everything.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { referenceServerBin } from '../../support/mcp-fixtures.js';
import { FAULTY_HTTP } from './faulty-servers.js';

/** A running HTTP server process. */
export interface HttpProcess {
  readonly port: number;
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly pid: number;
  /** Sends `signal` (default SIGKILL) and resolves once the process has exited. Idempotent. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A port that was free on 127.0.0.1 a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function launch(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  from: 'stdout' | 'stderr',
): Promise<{ pid: number; line: string; kill: HttpProcess['kill'] }> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const output: string[] = [];
  const lines = createInterface({ input: child[from] });
  const other = from === 'stdout' ? child.stderr : child.stdout;
  other.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`did not start: ${output.join('')}`)),
        20_000,
      );
      lines.on('line', (text) => {
        output.push(text);
        if (ready.test(text)) {
          clearTimeout(timer);
          resolve(text);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited (${code ?? signal}) before listening: ${output.join('\n')}`));
      });
    });
    lines.on('line', () => undefined); // keep draining
    return { pid: child.pid ?? -1, line, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}

/** `node faulty-http.mjs --port=<port>` (0: any free port). */
export async function startFaultyHttpProcess(port = 0, name = 'faulty-http'): Promise<HttpProcess> {
  const started = await launch(
    [FAULTY_HTTP, `--port=${port}`, `--name=${name}`],
    {},
    /^listening \d+$/,
    'stdout',
  );
  const actual = Number(started.line.split(' ')[1]);
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}/mcp`,
    pid: started.pid,
    kill: started.kill,
  };
}

/** server-everything over Streamable HTTP on `port`. */
export async function startEverythingProcess(port: number): Promise<HttpProcess> {
  const bin = referenceServerBin('@modelcontextprotocol/server-everything');
  const started = await launch(
    [bin, 'streamableHttp'],
    { PORT: String(port) },
    /listening on port/i,
    'stderr',
  );
  return {
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    pid: started.pid,
    kill: started.kill,
  };
}

/** What faulty-http.mjs counted in its process (`GET /control`). */
export async function processCounts(
  server: HttpProcess,
): Promise<{ initialize: number; calls: Record<string, number> }> {
  const response = await fetch(`http://127.0.0.1:${server.port}/control`);
  return (await response.json()) as { initialize: number; calls: Record<string, number> };
}
