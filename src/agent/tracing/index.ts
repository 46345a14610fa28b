// The tracing of an agent's runs (SPEC 12b): OpenTelemetry spans, seen by the loop only as the
// run observer it declares (../run-observer.ts). Only the runtime's construction imports this
// folder (depcruise rule agent-tracing-only-from-runtime).

export { AgentTracing } from './agent-tracing.js';
