import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { ModelClient } from '../model/index.js';
import { musterHome } from '../util/index.js';
import { ApprovalQueue } from './approval-queue.js';
import { ElicitationQueue } from './elicitation-queue.js';
import type { StudioInfo } from './api-types.js';
import { MusterError } from '../errors/index.js';
import { createStudioApp } from './studio-app.js';
import { StudioEventHub } from './studio-events.js';
import { studioOAuthOptions } from './studio-oauth.js';
import { StudioRuns } from './studio-runs.js';
import { createStudioRuntime } from './studio-runtime.js';
import { newStudioToken, StudioSecurity } from './studio-security.js';
import { checkStudioHost, checkStudioPort, listenStudio, STUDIO_HOST } from './studio-server.js';
import { defaultUiDir } from './studio-static.js';
import type { RunningStudio, StudioOptions } from './studio-options.js';

// What startStudio does once its packages are known to be installed: this module imports
// hono and @hono/node-server, which index.ts does not, so that a library install without
// them gets a typed error instead of a missing module.

const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** `startStudio`'s work (SPEC 12a), after its packages were checked. */
export async function startStudioNow(options: StudioOptions): Promise<RunningStudio> {
  checkStudioHost(options.host);
  const port = checkStudioPort(options.port);
  const fleet = checkFleet(options.fleet);
  const token = options.token ?? newStudioToken();
  if (!/^[A-Za-z0-9_-]{32,}$/.test(token)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'The studio token must be at least 32 URL-safe characters (letters, digits, - and _).',
    );
  }
  let app: Hono | undefined;
  const server = await listenStudio(
    (request, env) =>
      app?.fetch(request, env) ?? new Response('The studio is starting.', { status: 503 }),
    port,
  );
  const origin = `http://${STUDIO_HOST}:${server.port}`;
  const hub = new StudioEventHub();
  const controller = new AbortController();
  let runtime: ReturnType<typeof createStudioRuntime> | undefined;
  let runs: StudioRuns | undefined;
  const close = async (): Promise<void> => {
    controller.abort();
    await runs?.close();
    await runtime?.agent.close().catch(() => undefined);
    await hub.close();
    await server.close();
  };
  try {
    const workdir = options.workdir ?? process.cwd();
    // the shutdown withdraws every waiting approval (a project server's connection included)
    const approvals = new ApprovalQueue(hub, {
      shutdown: controller.signal,
      ...(options.approvalTimeoutMs === undefined ? {} : { timeoutMs: options.approvalTimeoutMs }),
    });
    const elicitations = new ElicitationQueue(hub);
    const oauth = await studioOAuthOptions({
      workdir,
      home: options.home ?? musterHome(),
      origin,
      allowedOrigins: options.allowedOrigins ?? [],
    });
    runtime = createStudioRuntime({
      ...options,
      apps: options.apps !== false,
      workdir,
      oauth,
      approvals,
      elicitations,
      events: hub,
    });
    const live = new StudioRuns(runtime.agent, hub, options.model !== undefined);
    runs = live;
    hub.setLiveRuns(() => live.live());
    // a console shows where every server stands: connect them now, in the background (each
    // goes through mcp_connect; a project file's servers wait in the approvals queue)
    void runtime.agent.mcp.connectAll().catch(() => undefined);
    const info: StudioInfo = {
      version: VERSION,
      ...(options.model === undefined
        ? {}
        : { model: options.modelLabel ?? modelLabel(options.model, options.modelName) }),
      store: options.storeKind ?? 'memory',
      apps: options.apps !== false,
    };
    const ctx = {
      agent: runtime.agent,
      policy: runtime.policy,
      events: hub,
      approvals,
      elicitations,
      info,
      fleet,
      origin,
      signal: controller.signal,
    };
    app = createStudioApp({
      ctx,
      security: new StudioSecurity(server.port, token),
      hub,
      approvals,
      elicitations,
      runs,
      uiDir: options.uiDir ?? defaultUiDir(),
    });
  } catch (err) {
    await close();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port: server.port,
    close: () => (closing ??= close()),
  };
}

/** The fleet's queue with its defaults (the workers' own), checked as the workers check them. */
function checkFleet(fleet: StudioOptions['fleet']): { queue: string; schema: string } {
  const queue = fleet?.queue ?? 'muster';
  const schema = fleet?.schema ?? 'pgboss';
  if (!/^[A-Za-z0-9_-]{1,50}$/.test(queue))
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The studio's fleet queue '${queue}' is no queue name: 1-50 of letters, digits, '_' or '-' (the workers' queue option).`,
    );
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The studio's fleet schema '${schema}' is not a lowercase PostgreSQL identifier (the workers' schema option).`,
    );
  return { queue, schema };
}

function modelLabel(model: ModelClient, modelName: string | undefined): string {
  const name = modelName ?? model.defaultModelName;
  return name === undefined || name === model.provider
    ? model.provider
    : `${model.provider}:${name}`;
}
