import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/index.js';
import type { McpOAuthServerOptions } from '../auth/index.js';
import type { McpOptions, McpServerConfig } from '../mcp/index.js';
import type { ModelClient } from '../model/index.js';
import { ToolPolicy } from '../policy/index.js';
import type { AuthorizationRule, PolicyOptions } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';
import type { ApprovalQueue } from './approval-queue.js';
import type { ElicitationQueue } from './elicitation-queue.js';
import type { StudioEventSink } from './studio-context.js';

/** A person answers the studio's forms: its elicitation handler may wait this long. */
const HANDLER_TIMEOUT_MS = 30 * 60_000;

/** What the studio's agent is built from. */
export interface StudioRuntimeInput {
  readonly model?: ModelClient;
  readonly modelName?: string;
  readonly system?: string;
  readonly workdir?: string;
  readonly sessionStore?: SessionStore;
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** MCP options; the studio sets `handlers.elicitation`, `handlerTimeoutMs` and `oauth`. */
  readonly mcp?: McpOptions;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly default?: 'ask' | 'allow' | 'deny';
  /** Rules before the allow list (the CLI passes the one that lets user-file servers connect). */
  readonly rules?: readonly AuthorizationRule[];
  /** The policy's version, which approvals of parked runs are bound to (SPEC 15.1). */
  readonly policyVersion?: string;
  readonly oauth: Readonly<Record<string, McpOAuthServerOptions>>;
  readonly approvals: ApprovalQueue;
  readonly elicitations: ElicitationQueue;
  readonly events: StudioEventSink;
  /** Whether the page renders MCP Apps views: then, and only then, servers are told so. */
  readonly apps?: boolean;
}

/** The MCP Apps client capability (SEP-1865), advertised only where a host renders views. */
const APPS_EXTENSION = {
  'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
};

/** The studio's agent and the policy its direct tool calls go through. */
export interface StudioRuntime {
  readonly agent: Agent;
  readonly policy: ToolPolicy;
}

/**
 * Builds the agent the studio runs, as `muster run` builds its own: the policy from
 * `--allow`/`--deny`/`--default` (default `ask`) with the approval queue as approver, the
 * elicitation queue as handler, the OAuth entries of the studio's callback. Every event the
 * agent emits (its runs' and those outside runs) is published as `{ kind: 'agent' }`, and
 * after `mcp.*` events the servers' snapshot follows as `{ kind: 'servers' }` (one per burst).
 */
export function createStudioRuntime(input: StudioRuntimeInput): StudioRuntime {
  const policyOptions: PolicyOptions = {
    ...(input.allow === undefined ? {} : { allow: [...input.allow] }),
    ...(input.deny === undefined ? {} : { deny: [...input.deny] }),
    default: input.default ?? 'ask',
    ...(input.rules === undefined ? {} : { rules: [...input.rules] }),
    approve: input.approvals.approve,
    ...(input.policyVersion === undefined ? {} : { version: input.policyVersion }),
  };
  const mcp: McpOptions = {
    ...input.mcp,
    handlers: { ...input.mcp?.handlers, elicitation: input.elicitations.handle },
    handlerTimeoutMs: input.mcp?.handlerTimeoutMs ?? HANDLER_TIMEOUT_MS,
    oauth: { ...input.mcp?.oauth, ...input.oauth },
    ...(input.apps === true
      ? { clientExtensions: { ...input.mcp?.clientExtensions, ...APPS_EXTENSION } }
      : {}),
  };
  // the observer needs the agent it observes; it is set once createAgent returns
  const built: { agent?: Agent } = {};
  // a burst of mcp.* events (a server's tools discovered one by one) sends one snapshot
  let snapshotDue = false;
  const sendServers = (): void => {
    snapshotDue = false;
    if (built.agent !== undefined)
      input.events.publish({ kind: 'servers', servers: built.agent.mcp.list() });
  };
  const agent = createAgent({
    ...(input.model === undefined ? {} : { model: input.model }),
    ...(input.modelName === undefined ? {} : { modelName: input.modelName }),
    ...(input.system === undefined ? {} : { system: input.system }),
    ...(input.workdir === undefined ? {} : { workdir: input.workdir }),
    ...(input.sessionStore === undefined ? {} : { sessionStore: input.sessionStore }),
    ...(input.mcpServers === undefined ? {} : { mcpServers: input.mcpServers }),
    policy: policyOptions,
    mcp,
    observability: {
      onEvent: (event) => {
        input.events.publish({ kind: 'agent', event });
        if (event.type.startsWith('mcp.') && !snapshotDue) {
          snapshotDue = true;
          setImmediate(sendServers);
        }
      },
    },
  });
  built.agent = agent;
  return { agent, policy: new ToolPolicy(policyOptions) };
}
