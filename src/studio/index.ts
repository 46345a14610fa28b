/**
 * The `muster-agent/studio` entry: `startStudio()` and its options. Route modules, queues and
 * the security layer stay inside the folder.
 *
 * @module muster-agent/studio
 */
import { fileURLToPath } from 'node:url';
import { MusterError } from '../errors/index.js';
import { missingPackages } from '../util/index.js';
import type { RunningStudio, StudioOptions } from './studio-options.js';

export type { RunningStudio, StudioOptions } from './studio-options.js';

export type {
  StudioErrorCode,
  StudioErrorBody,
  StudioInfo,
  ServersResponse,
  ServerDiagnosticsResponse,
  RegisterServerBody,
  ToolView,
  CallToolBody,
  ToolResultView,
  CallToolResponse,
  ResourcesResponse,
  ReadResourceResponse,
  CompleteBody,
  CompleteResponse,
  SubscribeBody,
  PromptsResponse,
  GetPromptBody,
  SignInResponse,
  SessionsResponse,
  SessionSummaryView,
  SessionView,
  StartRunBody,
  StartRunResponse,
  CancelRunResponse,
  PendingApproval,
  ApprovalAnswerBody,
  PendingElicitation,
  ElicitationAnswerBody,
  ParkedWait,
  TaskWaitView,
  WaitsResponse,
  DecideWaitBody,
  DecideWaitResponse,
  ResumeRunResponse,
  FleetSessionView,
  FleetResponse,
  AppViewResponse,
  StudioEvent,
} from './api-types.js';

/** The packages the studio's server imports: optional peers of the library. */
const STUDIO_PACKAGES = ['hono', '@hono/node-server'] as const;

/**
 * Starts the studio (SPEC 12a): listens on 127.0.0.1, then builds the agent (OAuth needs the
 * real port for its callback) and serves the API and the page.
 *
 * @example
 * ```ts
 * const studio = await startStudio({ model, mcpServers, allow: ['mcp_connect:*'] });
 * console.log(studio.url);
 * await studio.close();
 * ```
 *
 * @throws MusterError `INVALID_CONFIGURATION` when `hono` or `@hono/node-server` is not
 *   installed (the library's install leaves them out), naming what to install.
 */
export async function startStudio(options: StudioOptions = {}): Promise<RunningStudio> {
  const missing = missingPackages(STUDIO_PACKAGES, fileURLToPath(new URL('.', import.meta.url)));
  if (missing.length > 0)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The studio needs ${missing.join(' and ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed: muster-agent is the library alone. Install them beside it (npm i ${STUDIO_PACKAGES.join(' ')}), or use the studio of the command: npm i -g muster-agent-cli, then muster studio.`,
      { details: { packages: missing } },
    );
  const { startStudioNow } = await import('./studio-start.js');
  return startStudioNow(options);
}
