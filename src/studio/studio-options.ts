// What startStudio takes and what it returns: the studio's options and a running studio.
import type { McpOptions, McpServerConfig } from '../mcp/index.js';
import type { ModelClient } from '../model/index.js';
import type { AuthorizationRule } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';

/** What `startStudio` takes. The `muster studio` command builds it from its options. */
export interface StudioOptions {
  /** The model runs use; without one, starting a run fails (the rest of the studio works). */
  readonly model?: ModelClient;
  readonly modelName?: string;
  /** What `GET /api/info` calls the model (`openai:gpt-5-mini`); default its provider and name. */
  readonly modelLabel?: string;
  readonly system?: string;
  /** Where sessions live (default: a new memory store). */
  readonly sessionStore?: SessionStore;
  /** What `GET /api/info` calls the store: `sqlite`, `postgres`, `memory` (default). */
  readonly storeKind?: string;
  /**
   * The workers' pg-boss queue the Fleet page reads on a PostgreSQL store (SPEC 15.5), as the
   * workers' own `queue` and `schema` options: default `muster` and `pgboss`. Read only; a
   * schema with no queue yet shows nothing queued.
   */
  readonly fleet?: { readonly queue?: string; readonly schema?: string };
  /** The project folder (`.muster/mcp.json`); default the current directory. */
  readonly workdir?: string;
  /** The user folder (`MUSTER_HOME`); default `MUSTER_HOME` or `~/.muster`. */
  readonly home?: string;
  /** Servers besides those of the project and user files. */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** MCP options of the agent (the studio sets the elicitation handler and OAuth). */
  readonly mcp?: McpOptions;
  /** Tool patterns that run without asking (`--allow`). */
  readonly allow?: readonly string[];
  /** Tool patterns always refused (`--deny`). */
  readonly deny?: readonly string[];
  /** What happens to other calls (`--default`, default `ask`: the approvals queue). */
  readonly default?: 'ask' | 'allow' | 'deny';
  /**
   * How long a call waits on the approvals queue (default 30 minutes); nobody answering by
   * then denies it, with a reason that says so.
   */
  readonly approvalTimeoutMs?: number;
  /** Rules asked before the allow list. */
  readonly rules?: readonly AuthorizationRule[];
  /**
   * The policy's version (`policy.version`, SPEC 15.1): a run parked elsewhere and resumed
   * here keeps its decision only under the same version. Set it to the version the parking
   * hosts use; absent, a hash of the studio's policy data (patterns, default, rule ids).
   */
  readonly policyVersion?: string;
  /** Only `127.0.0.1` or `localhost`; anything else fails with `INVALID_CONFIGURATION`. */
  readonly host?: string;
  /** The port (default 0: a free one). */
  readonly port?: number;
  /** The studio token (default: a new random one); at least 32 URL-safe characters. */
  readonly token?: string;
  /** Origins OAuth may reach besides the server's own (`--allowed-origin`). */
  readonly allowedOrigins?: readonly string[];
  /** The built page's folder (default: `dist/studio-ui/` of the package). */
  readonly uiDir?: string;
  /**
   * Whether the page renders MCP Apps views (default true): the agent then advertises the
   * extension's client capability to servers, and `GET /api/info` reports it.
   */
  readonly apps?: boolean;
}

/** A running studio. */
export interface RunningStudio {
  /** `http://127.0.0.1:<port>/?token=<token>`: print it once, it signs the browser in. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Cancels runs and pending questions, closes the streams, the server and the agent. Idempotent. */
  close(): Promise<void>;
}
