/**
 * The `muster-agent/postgres` entry: a session store in PostgreSQL for many replicas, on `pg`,
 * an optional peer dependency that only this entry imports. Any new export added here becomes
 * public API.
 *
 * @module muster-agent/postgres
 */

export { PostgresSessionStore } from './postgres-session-store.js';
export type { PostgresSessionStoreOptions } from './postgres-session-store.js';
export { POSTGRES_SCHEMA_VERSION } from './postgres-schema.js';
export type {
  DecisionHook,
  DecisionQuery,
  DispatchableStore,
  SessionDispatchState,
  WaitDecidedInTransaction,
} from './session-dispatch.js';
export type {
  FleetJob,
  FleetQuery,
  FleetSession,
  FleetState,
  FleetView,
  SessionFleetStore,
} from './session-fleet.js';
