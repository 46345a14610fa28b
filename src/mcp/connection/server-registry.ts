import {
  PrincipalSessions,
  createOAuthSession,
  fileTokenStore,
  keychainTokenStore,
  tokenStoreChoices,
} from '../../auth/index.js';
import type { TokenStoreChoices } from '../../auth/index.js';
import { MusterError } from '../../errors/index.js';
import { SecretRegistry } from '../../util/index.js';
import { transportOf } from '../config/config-sources.js';
import type { ServerDeclaration } from '../config/config-sources.js';
import type { McpOptions } from '../contracts/config-types.js';
import { MCP_DEFAULTS, mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { McpServerStatus } from '../contracts/mcp-status.js';
import { secretsOf } from '../config/redact.js';
import { principalModeOf } from '../config/principal-mode.js';
import { snapshot } from './server-entry.js';
import { createGuardedFetch } from '../transports/guarded-fetch.js';
import type { ServerEntry } from './server-entry.js';

/**
 * The registry of MCP servers: one entry per name, with its declaration, status, secrets
 * and the rules that block it (`mcp.transports`, `mcp.allowedServers`). No I/O.
 */
export class ServerRegistry {
  readonly #entries = new Map<string, ServerEntry>();
  readonly #options: McpOptions;
  /** The token stores of this registry's OAuth servers (`memory` is this registry's own). */
  readonly #stores: TokenStoreChoices = tokenStoreChoices(
    () => fileTokenStore(),
    () => keychainTokenStore(),
  );
  #closed = false;

  constructor(declarations: readonly ServerDeclaration[], options: McpOptions) {
    this.#options = options;
    for (const d of declarations) this.#entries.set(d.name, this.#create(d));
  }

  /** True once the agent closed its MCP side. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Marks the registry closed: nothing may connect from now on; logins in progress end. */
  close(): void {
    this.#closed = true;
    for (const e of this.#entries.values()) {
      e.oauth?.close();
      e.principals?.close();
    }
  }

  /** A local snapshot of every server. */
  list(): McpServerStatus[] {
    return [...this.#entries.values()].map(snapshot);
  }

  /** Every entry, in registration order. */
  entries(): ServerEntry[] {
    return [...this.#entries.values()];
  }

  /** The entry of a server, if registered. */
  get(name: string): ServerEntry | undefined {
    return this.#entries.get(name);
  }

  /** True when a server of this name is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** True while `e` is still the registered entry of its name and the registry is open. */
  isLive(e: ServerEntry): boolean {
    return !this.#closed && this.#entries.get(e.name) === e;
  }

  /** The declaration a server was registered with. */
  declaration(name: string): ServerDeclaration | undefined {
    const e = this.#entries.get(name);
    return e
      ? { name: e.name, source: e.source, where: 'agent.mcp', config: e.config, key: e.key }
      : undefined;
  }

  /** Adds a declaration; a name that exists fails with `INVALID_CONFIGURATION`. */
  add(declaration: ServerDeclaration): void {
    if (this.#entries.has(declaration.name)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `MCP server '${declaration.name}' is already registered: unregister it first.`,
        { details: { server: declaration.name } },
      );
    }
    this.#entries.set(declaration.name, this.#create(declaration));
  }

  /** Removes a server's entry and returns it; an unknown name fails. */
  delete(name: string): ServerEntry {
    const e = this.#entries.get(name);
    if (!e) throw unknownServerError(name);
    this.#entries.delete(name);
    return e;
  }

  /** Sets a status (its error sanitized) and reports it as `mcp.server.status`. */
  setStatus(
    e: ServerEntry,
    status: ServerEntry['status'],
    emit: Emit,
    error?: { code: string; message: string },
  ): void {
    e.status = status;
    if (error) e.error = { code: error.code, message: e.secrets.redact(error.message) };
    emit(
      mcpEvent({
        type: 'mcp.server.status',
        server: e.name,
        status,
        ...(status === 'connected' && e.protocolVersion
          ? { protocolVersion: e.protocolVersion }
          : {}),
        ...(status === 'connected' && e.era ? { era: e.era } : {}),
        ...(error ? { error: e.error } : {}),
      }),
    );
  }

  #oauthFor(
    d: ServerDeclaration,
    type: string,
    secrets: SecretRegistry,
  ): Pick<ServerEntry, 'oauth' | 'principals'> {
    const oauth = oauthSessionFor(d, type, secrets, this.#options, this.#stores);
    if (!oauth) return {};
    // a principal's tokens join a registry of its own (the server's secrets still apply), which
    // goes with its session: nothing of a principal piles up in the server's registry
    const principals = new PrincipalSessions(
      (principal) =>
        oauthSessionFor(
          d,
          type,
          new SecretRegistry([], secrets),
          this.#options,
          this.#stores,
          principal,
        )!,
    );
    return { oauth, principals };
  }

  #create(d: ServerDeclaration): ServerEntry {
    const perPrincipal = principalModeOf(d, this.#options);
    const type = transportOf(d.config);
    const allowedTransports = this.#options.transports ?? MCP_DEFAULTS.transports;
    const allowed = this.#options.allowedServers;
    let blocked: string | undefined;
    if (!allowedTransports.includes(type))
      blocked = `the ${type} transport is not in mcp.transports`;
    else if (type !== 'sdk' && allowed !== undefined && !allowed.includes(d.name))
      blocked = 'not in mcp.allowedServers';
    const secrets = new SecretRegistry(secretsOf(d.config));
    const oauth = this.#oauthFor(d, type, secrets);
    return {
      name: d.name,
      source: d.source,
      config: d.config,
      type,
      key: d.key,
      secrets,
      ...oauth,
      ...(perPrincipal ? { perPrincipal } : {}),
      status: blocked ? 'disabled' : 'pending',
      ...(blocked
        ? {
            blocked,
            error: {
              code: 'INVALID_CONFIGURATION',
              message: `Server '${d.name}' is disabled: ${blocked}.`,
            },
          }
        : {}),
      retry: !blocked,
      tools: [],
      stale: false,
    };
  }
}

/**
 * The OAuth session of a declaration that has an `mcp.oauth` entry (checked against it): the
 * local user's, or `principal`'s.
 */
function oauthSessionFor(
  d: ServerDeclaration,
  type: string,
  secrets: SecretRegistry,
  options: McpOptions,
  stores: TokenStoreChoices,
  principal?: string,
): ServerEntry['oauth'] {
  const entry = options.oauth?.[d.name];
  if (entry === undefined) return undefined;
  const config = d.config as { url?: string; headers?: Record<string, string>; auth?: unknown };
  const staticAuth =
    config.auth !== undefined ||
    Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
  return createOAuthSession({
    server: d.name,
    facts: { type, ...(config.url === undefined ? {} : { url: config.url }), staticAuth },
    options: entry,
    stores,
    secrets,
    fetch: createGuardedFetch({
      server: d.name,
      maxResponseBytes: options.maxResponseBytes ?? MCP_DEFAULTS.maxResponseBytes,
    }),
    ...(principal === undefined ? {} : { principal }),
  });
}

/** The error for a server name no registry entry has (`INVALID_CONFIGURATION`). */
export function unknownServerError(name: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `No MCP server is registered as '${name}': register it first, or check the name.`,
    { details: { server: name } },
  );
}
