import type { Hono } from 'hono';
import type { Agent } from '../agent/index.js';
import type { ToolPolicy } from '../policy/index.js';
import type { PendingApproval, PendingElicitation, StudioEvent, StudioInfo } from './api-types.js';

/** Sends studio events to every open `/api/events` stream. */
export interface StudioEventSink {
  publish(event: StudioEvent): void;
}

/** The calls waiting for a person (the studio's approver feeds it). */
export interface StudioApprovals {
  pending(): readonly PendingApproval[];
}

/** The server questions waiting for a person (the studio's elicitation handler feeds it). */
export interface StudioElicitations {
  pending(): readonly PendingElicitation[];
}

/**
 * What every route module gets: the agent the studio runs, the policy its direct tool calls
 * go through (the agent's own policy options, approver included), the queues, the event
 * sink, and the studio's own origin (`http://127.0.0.1:<port>`).
 */
export interface StudioContext {
  readonly agent: Agent;
  readonly policy: ToolPolicy;
  readonly events: StudioEventSink;
  readonly approvals: StudioApprovals;
  readonly elicitations: StudioElicitations;
  readonly info: StudioInfo;
  /** The workers' pg-boss queue the fleet view reads (`StudioOptions.fleet`, resolved). */
  readonly fleet: { readonly queue: string; readonly schema: string };
  readonly origin: string;
  /** Ends every background activity of the routes (subscriptions, runs) on shutdown. */
  readonly signal: AbortSignal;
}

/** A group of routes: adds its handlers to the app. */
export type StudioRoutes = (app: Hono, ctx: StudioContext) => void;
