/**
 * Paths, launch configurations and starters for the MCP fixture servers in
 * `test/fixtures/mcp/` and for the three reference servers
 * (`@modelcontextprotocol/server-everything`, `-filesystem`, `-memory`).
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export {
  startDualHttpServer,
  startHttpFixture,
  startLegacyOnlyHttpServer,
  startModernOnlyHttpServer,
} from '../fixtures/mcp/http-servers.mjs';
export type {
  HttpFixture,
  HttpFixtureKind,
  HttpFixtureTools,
  HttpFixtureToolSpec,
} from '../fixtures/mcp/http-servers.mjs';
export {
  BIG_JSON_ITEMS,
  bigJson,
  bigText,
  LONG_TOOL_NAME,
  SAFE_NAMES_COLLISION_TOOL,
  SAFE_NAMES_TOOLS,
} from '../fixtures/mcp/fixture-data.mjs';
export type { BigJsonDocument, BigJsonItem } from '../fixtures/mcp/fixture-data.mjs';

/** Absolute path of `test/fixtures/mcp/`. */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/mcp/', import.meta.url));

/** The stdio fixture servers (plain `.mjs`, run with `node`). */
export type StdioFixture =
  | 'basic-server.mjs'
  | 'safe-names-server.mjs'
  | 'big-result-server.mjs'
  | 'list-changing-server.mjs'
  | 'fail-start-server.mjs'
  | 'slow-server.mjs'
  | 'exit-mid-call-server.mjs'
  | 'counting-server.mjs'
  | 'env-server.mjs'
  | 'features-server.mjs'
  | 'many-tools-server.mjs'
  | 'catalog-server.mjs'
  | 'gated-server.mjs'
  | 'apps-tools-server.mjs'
  | 'sibling-sampling-server.mjs'
  | 'input-parking-server.mjs'
  | 'scripted-stdio-server.mjs'
  | 'call-log-server.mjs'
  | 'budget-server.mjs';

/** Every file name under `test/fixtures/mcp/` (any other string is accepted too). */
export type FixtureFile =
  | StdioFixture
  | 'http-servers.mjs'
  | 'fixture-data.mjs'
  | 'shared.mjs'
  | (string & {});

/** A launch configuration usable as `StdioServerParameters` and as a Muster stdio config. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Absolute path of a file in `test/fixtures/mcp/`. */
export function fixturePath(file: FixtureFile): string {
  return join(FIXTURES_DIR, file);
}

/** `{ command: node, args: [<fixture path>, ...args] }` for a stdio fixture. */
export function stdioConfig(fixture: StdioFixture, args: readonly string[] = []): StdioLaunch {
  return { command: process.execPath, args: [fixturePath(fixture), ...args] };
}

/** The reference server packages installed as dev dependencies. */
export type ReferencePackage =
  | '@modelcontextprotocol/server-everything'
  | '@modelcontextprotocol/server-filesystem'
  | '@modelcontextprotocol/server-memory';

const require = createRequire(import.meta.url);

/** Absolute path of a reference package's (first) `bin` script. */
export function referenceServerBin(pkg: ReferencePackage): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${pkg} declares no bin`);
  return resolvePath(dirname(manifestPath), bin);
}

/** Tools of server-everything that the tests rely on (it has more). */
export const EVERYTHING_TOOLS = [
  'echo',
  'get-sum',
  'get-structured-content',
  'trigger-long-running-operation',
  'get-tiny-image',
  'get-resource-links',
] as const;

/** server-everything over stdio. */
export function everythingStdioConfig(): StdioLaunch {
  return {
    command: process.execPath,
    args: [referenceServerBin('@modelcontextprotocol/server-everything'), 'stdio'],
  };
}

/** server-filesystem allowed to access `dir` (made absolute). */
export function filesystemStdioConfig(dir: string): StdioLaunch {
  return {
    command: process.execPath,
    args: [referenceServerBin('@modelcontextprotocol/server-filesystem'), resolvePath(dir)],
  };
}

/** server-memory storing its graph in `file` (made absolute; passed as `MEMORY_FILE_PATH`). */
export function memoryStdioConfig(file: string): StdioLaunch {
  return {
    command: process.execPath,
    args: [referenceServerBin('@modelcontextprotocol/server-memory')],
    env: { MEMORY_FILE_PATH: resolvePath(file) },
  };
}

/** A running server-everything over Streamable HTTP. */
export interface EverythingHttp {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  readonly pid: number;
  /** SIGINT, then resolves when the process has exited (SIGKILL after 5 s). Idempotent. */
  close(): Promise<void>;
}

/** A port that was free on 127.0.0.1 a moment ago. */
async function freeLoopbackPort(): Promise<number> {
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

/**
 * Starts `node <server-everything bin> streamableHttp` on a free loopback port
 * and resolves once it logs that it is listening. Retries (up to three times)
 * when the port was taken between picking and binding.
 */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startEverythingHttpOnce(await freeLoopbackPort());
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && /already in use/.test(error.message))) throw error;
    }
  }
  throw lastError;
}

async function startEverythingHttpOnce(port: number): Promise<EverythingHttp> {
  const bin = referenceServerBin('@modelcontextprotocol/server-everything');
  const child = spawn(process.execPath, [bin, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stderr: string[] = [];
  const lines = createInterface({ input: child.stderr });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('server-everything did not start')), 20_000);
      const done = (error?: Error) => {
        clearTimeout(timer);
        lines.off('line', onLine);
        child.off('exit', onExit);
        child.off('error', done);
        if (error) reject(error);
        else resolve();
      };
      const onLine = (line: string) => {
        stderr.push(line);
        if (/listening on port/i.test(line)) done();
      };
      const onExit = (code: number | null, signal: string | null) =>
        done(new Error(`server-everything exited (${code ?? signal}): ${stderr.join('\n')}`));
      lines.on('line', onLine);
      child.once('exit', onExit);
      child.once('error', done);
    });
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  }
  lines.on('line', () => {}); // keep draining stderr
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid ?? -1,
    close() {
      closing ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** One line of counting-server's `--log` file. */
export interface CountingLogEntry {
  name: string;
  pid: number;
  event: 'start' | 'exit';
}

/** Parses counting-server's `--log` file (an absent file means no process started). */
export async function readCountingLog(file: string): Promise<CountingLogEntry[]> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return content
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name = '', pid = '', event = ''] = line.split(' ');
      return { name, pid: Number(pid), event: event as CountingLogEntry['event'] };
    });
}
