/**
 * A bare Hono app with the studio's MCP routes mounted on a StudioContext built here: a real
 * agent with real MCP servers, a real ToolPolicy, and a recorder for the events.
 */
import { Hono } from 'hono';
import { expect } from 'vitest';
import { createAgent, scriptedModel, ToolPolicy } from '../../src/index.js';
import type {
  McpOAuthServerOptions,
  McpOptions,
  McpServerConfig,
  PolicyOptions,
} from '../../src/index.js';
import type { StudioEvent } from '../../src/studio/api-types.js';
import { mcpRoutes } from '../../src/studio/mcp-routes.js';
import type { StudioContext } from '../../src/studio/studio-context.js';

/** Every event the routes published, and a way to wait for one. */
export class EventRecorder {
  readonly events: StudioEvent[] = [];
  readonly #waiters: { match: (e: StudioEvent) => boolean; resolve: (e: StudioEvent) => void }[] =
    [];

  publish(event: StudioEvent): void {
    this.events.push(event);
    for (const w of [...this.#waiters])
      if (w.match(event)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(event);
      }
  }

  /** The first event (seen or to come) that matches. */
  next(match: (e: StudioEvent) => boolean): Promise<StudioEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }
}

/** The studio under test. */
export interface McpStudio {
  readonly app: Hono;
  readonly ctx: StudioContext;
  readonly events: EventRecorder;
  /** A JSON request as the page sends it. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /** The text of every response {@link call} received (for the secrets canaries). */
  readonly bodies: string[];
  /** Aborts `ctx.signal` (the studio shutting down) and leaves the agent open. */
  stop(): void;
  close(): Promise<void>;
}

/** Options of {@link mcpStudio}. */
export interface McpStudioOptions {
  readonly servers?: Readonly<Record<string, McpServerConfig>>;
  /** The policy of the studio's direct calls (default: allow everything). */
  readonly policy?: PolicyOptions;
  readonly oauth?: Readonly<Record<string, McpOAuthServerOptions>>;
  /** More `mcp` options of the agent (`protocol`, say). */
  readonly mcp?: Omit<McpOptions, 'oauth' | 'strictConfig'>;
  readonly origin?: string;
  /** Mount on this app (one already served on loopback) instead of a new one. */
  readonly app?: Hono;
}

/** Builds the context and mounts the MCP routes on a bare Hono app. */
export function mcpStudio(options: McpStudioOptions = {}): McpStudio {
  const app = options.app ?? new Hono();
  const events = new EventRecorder();
  const bodies: string[] = [];
  const lifetime = new AbortController();
  const agent = createAgent({
    model: scriptedModel([]),
    mcpServers: options.servers ?? {},
    mcp: {
      ...options.mcp,
      strictConfig: true,
      ...(options.oauth ? { oauth: options.oauth } : {}),
    },
    policy: { allow: ['mcp_connect:*'] },
  });
  const ctx: StudioContext = {
    agent,
    policy: new ToolPolicy(options.policy ?? { default: 'allow' }),
    events,
    approvals: { pending: () => [] },
    elicitations: { pending: () => [] },
    info: { version: 'test', store: 'memory', apps: false },
    fleet: { queue: 'muster', schema: 'pgboss' },
    origin: options.origin ?? 'http://127.0.0.1:4321',
    signal: lifetime.signal,
  };
  mcpRoutes(app, ctx);
  return {
    app,
    ctx,
    events,
    bodies,
    async call(method, path, body) {
      const response = await app.request(path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      bodies.push(await response.clone().text());
      return response;
    },
    stop: () => lifetime.abort(),
    async close() {
      lifetime.abort();
      await agent.close();
    },
  };
}

/** The JSON body of a studio response, after checking its status (200 unless told). */
export async function json<T>(response: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await response;
  const body = (await r.json()) as T;
  expect(r.status, JSON.stringify(body)).toBe(status);
  return body;
}
