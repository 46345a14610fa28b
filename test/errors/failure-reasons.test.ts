// `details.reason` is a typed fact: the type checker (npm run typecheck) proves each family's
// switch exhaustive and refuses a misspelled reason, when constructing and when comparing;
// the runtime part checks the tuples and that real producers give members of them.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { authError } from '../../src/auth/index.js';
import { parseCredentials } from '../../src/auth/credentials-file.js';
import { contextLimitError, summarizerError } from '../../src/context/context-limit-error.js';
import {
  DRIVER_FAILURE_REASONS,
  MCP_FAILURE_REASONS,
  MCP_TRANSPORT_FAILURE_REASONS,
  MODEL_FAILURE_REASONS,
  McpError,
  ModelError,
  MusterError,
  OAUTH_FAILURE_REASONS,
  RUNTIME_FAILURE_REASONS,
  SESSION_FAILURE_REASONS,
  SessionError,
  TOOL_FAILURE_REASONS,
  TOOL_OUTCOME_UNKNOWN_REASONS,
  ToolError,
} from '../../src/errors/index.js';
import type {
  McpFailureReason,
  ModelFailureReason,
  MusterErrorDetails,
  ReasonOf,
  RuntimeErrorCode,
  RuntimeFailureReason,
  SessionFailureReason,
  ToolFailureReason,
} from '../../src/errors/index.js';
import {
  lostError,
  notSentError,
  streamLostError,
} from '../../src/mcp/failures/connection-errors.js';
import { classifyCallError, operationFailure } from '../../src/mcp/failures/mcp-errors.js';
import { SecretRegistry } from '../../src/util/index.js';
import { postgresStoreError, postgresTarget } from '../../src/session/postgres-failure.js';
import { sqliteStoreError } from '../../src/session/sqlite-failure.js';

// One switch per family: adding a reason to a tuple fails to compile until it is handled.

function toolAdvice(err: ToolError): string {
  const reason = err.details.reason;
  if (reason === undefined) return 'see the code';
  switch (reason) {
    case 'not-sent':
      return 'not run: safe to send again';
    case 'response-too-large':
      return 'ran: ask for less';
    case 'output-invalid':
      return 'ran: its result is invalid';
    case 'input-state-too-large':
    case 'input-rounds-exceeded':
    case 'no-input-handler':
      return 'asked for input that cannot be given';
    case 'task-failed':
    case 'task-cancelled':
      return 'ran as a task that did not complete';
    case 'timeout':
    case 'disconnected':
    case 'aborted':
    case 'task-expired':
    case 'task-not-found':
    case 'unknown':
      return 'may have run: check before retrying';
    default: {
      const _exhaustive: never = reason;
      return _exhaustive;
    }
  }
}

function mcpAdvice(err: McpError): string {
  const reason = err.details.reason;
  if (reason === undefined) return 'see the code';
  switch (reason) {
    case 'response-too-large':
    case 'not-sent':
    case 'redirect':
    case 'stream-lost':
    case 'timed-out':
      return 'transport';
    case 'login-required':
    case 'insufficient-scope':
    case 'state-mismatch':
    case 'issuer-mismatch':
    case 'duplicate-parameter':
    case 'wrong-destination':
    case 'invalid-callback':
    case 'no-login':
    case 'authorization-denied':
    case 'origin-not-allowed':
    case 'insecure-url':
    case 'redirect-refused':
    case 'login-timeout':
    case 'login-cancelled':
    case 'token-request-failed':
      return 'sign-in';
    case 'spawn-failed':
      return 'fix the declaration';
    case 'unsafe-url':
    case 'invalid-answer':
      return 'elicitation refused';
    case 'queue-overflow':
      return 'read faster';
    case 'pin-not-offered':
      return 'pin another version, or use auto';
    case 'invalid-response':
      return 'report it to the server';
    default: {
      const _exhaustive: never = reason;
      return _exhaustive;
    }
  }
}

function modelAdvice(err: ModelError): string {
  const reason = err.details.reason;
  if (reason === undefined) return err.isRetryable ? 'retry' : 'see the code';
  switch (reason) {
    default: {
      const _exhaustive: never = reason;
      return _exhaustive;
    }
  }
}

function sessionAdvice(err: MusterError<'SESSION_STORE_FAILED'> | SessionError): string {
  const reason = err.details.reason;
  if (reason === undefined) return 'see the code';
  switch (reason) {
    case 'folder-missing':
      return 'create the folder';
    case 'not-permitted':
      return 'fix the permissions';
    case 'locked':
      return 'close the other process';
    case 'corrupt':
      return 'restore from a backup';
    case 'disk-full':
      return 'free space';
    case 'server-unreachable':
      return 'start the server';
    case 'host-not-found':
      return 'fix the host';
    case 'auth-failed':
      return 'fix the credentials';
    case 'database-missing':
      return 'create the database';
    default: {
      const _exhaustive: never = reason;
      return _exhaustive;
    }
  }
}

function runtimeAdvice(err: MusterError<RuntimeErrorCode>): string {
  const reason = err.details.reason;
  if (reason === undefined) return 'see the code';
  switch (reason) {
    case 'driver-missing':
    case 'driver-not-built':
    case 'driver-abi-mismatch':
      return 'install or rebuild the driver';
    case 'token-file-corrupt':
      return 'delete the token file';
    case 'minimum-over-limit':
    case 'summarizer-failed':
    case 'summary-empty':
    case 'summary-too-long':
      return 'raise the context limits or fix the summarizer';
    case 'output-not-json':
    case 'output-schema-mismatch':
      return 'raise outputRepairs or simplify the schema';
    case 'wait-unknown':
    case 'wait-decided':
    case 'wait-expired':
      return 'list the waits again';
    case 'agent-closed':
      return 'resume the session on an open agent';
    default: {
      const _exhaustive: never = reason;
      return _exhaustive;
    }
  }
}

describe('details.reason types', () => {
  it('gives each code the reasons of its family', () => {
    expectTypeOf<ReasonOf<'TOOL_OUTCOME_UNKNOWN'>>().toEqualTypeOf<ToolFailureReason>();
    expectTypeOf<ReasonOf<'MCP_AUTH_REQUIRED'>>().toEqualTypeOf<McpFailureReason>();
    expectTypeOf<ReasonOf<'ABORTED'>>().toEqualTypeOf<RuntimeFailureReason>();
    expectTypeOf<ReasonOf<'MODEL_REQUEST_FAILED'>>().toEqualTypeOf<ModelFailureReason>();
    expectTypeOf<ReasonOf<'SESSION_STORE_FAILED'>>().toEqualTypeOf<SessionFailureReason>();
    // no MODEL_* reason yet: their details cannot carry one
    expectTypeOf<ModelFailureReason>().toBeNever();
    expectTypeOf(new ToolError('TOOL_EXECUTION_FAILED', 'm').details.reason).toEqualTypeOf<
      ToolFailureReason | undefined
    >();
    expectTypeOf<MusterErrorDetails<'INVALID_CONFIGURATION'>['reason']>().toEqualTypeOf<
      RuntimeFailureReason | undefined
    >();
  });

  it('refuses a misspelled reason when constructing', () => {
    new ToolError('TOOL_EXECUTION_FAILED', 'm', { details: { reason: 'not-sent' } });
    // @ts-expect-error 'not-snt' is not a reason of the TOOL_* family
    new ToolError('TOOL_EXECUTION_FAILED', 'm', { details: { reason: 'not-snt' } });
    // @ts-expect-error 'timed-out' is an MCP_* reason; TOOL_* says 'timeout'
    new ToolError('TOOL_OUTCOME_UNKNOWN', 'm', { details: { reason: 'timed-out' } });
    // @ts-expect-error 'stream-lst' is not a reason of the MCP_* family
    new McpError('MCP_DISCONNECTED', 'm', { details: { reason: 'stream-lst' } });
    // @ts-expect-error MODEL_* has no reason yet
    new ModelError('MODEL_REQUEST_FAILED', 'm', { details: { reason: 'not-sent' } });
    new SessionError('SESSION_STORE_FAILED', 'm', {
      sessionId: 's',
      details: { reason: 'locked' },
    });
    // @ts-expect-error 'lockd' is not a reason of the SESSION_* family
    new SessionError('SESSION_STORE_FAILED', 'm', { sessionId: 's', details: { reason: 'lockd' } });
    // @ts-expect-error 'driver-gone' is not a reason of the remaining codes
    new MusterError('INVALID_CONFIGURATION', 'm', { details: { reason: 'driver-gone' } });
    // @ts-expect-error a reason of another family does not fit the code's
    new MusterError('INVALID_CONFIGURATION', 'm', { details: { reason: 'not-sent' } });
  });

  it('refuses a misspelled reason when comparing', () => {
    const tool = new ToolError('TOOL_OUTCOME_UNKNOWN', 'm', { details: { reason: 'timeout' } });
    expect(tool.details.reason === 'timeout').toBe(true);
    // @ts-expect-error 'time-out' is no reason of a ToolError: the comparison cannot be true
    expect(tool.details.reason === 'time-out').toBe(false);
    const mcp: McpError = notSentError('s');
    // @ts-expect-error 'not_sent' is no reason of an McpError
    expect(mcp.details.reason === 'not_sent').toBe(false);
    const any: MusterError = mcp;
    expect(any.details.reason === 'not-sent').toBe(true);
    // @ts-expect-error 'notsent' is no reason of any family
    expect(any.details.reason === 'notsent').toBe(false);
  });

  it('lets the switches above decide on real errors', () => {
    expect(toolAdvice(new ToolError('TOOL_EXECUTION_FAILED', 'm'))).toBe('see the code');
    expect(mcpAdvice(streamLostError('s'))).toBe('transport');
    expect(modelAdvice(new ModelError('MODEL_REQUEST_FAILED', 'm', { isRetryable: true }))).toBe(
      'retry',
    );
    expect(sessionAdvice(new SessionError('SESSION_NOT_FOUND', 'm', { sessionId: 's' }))).toBe(
      'see the code',
    );
    expect(
      runtimeAdvice(
        new MusterError('AGENT_LIMIT_EXCEEDED', 'm', { details: { reason: 'summary-empty' } }),
      ),
    ).toBe('raise the context limits or fix the summarizer');
  });
});

describe('the reason tuples', () => {
  const families = {
    TOOL: TOOL_FAILURE_REASONS,
    MCP: MCP_FAILURE_REASONS,
    MODEL: MODEL_FAILURE_REASONS,
    SESSION: SESSION_FAILURE_REASONS,
    RUNTIME: RUNTIME_FAILURE_REASONS,
  };

  it.each(Object.entries(families))('%s has no duplicates, each reason in kebab-case', (_, r) => {
    expect(new Set(r).size).toBe(r.length);
    for (const reason of r) expect(reason).toMatch(/^[a-z]+(-[a-z]+)*$/);
  });

  it('each family holds the groups it is made of', () => {
    expect(MCP_FAILURE_REASONS).toEqual(expect.arrayContaining([...MCP_TRANSPORT_FAILURE_REASONS]));
    expect(MCP_FAILURE_REASONS).toEqual(expect.arrayContaining([...OAUTH_FAILURE_REASONS]));
    expect(TOOL_FAILURE_REASONS).toEqual(expect.arrayContaining([...TOOL_OUTCOME_UNKNOWN_REASONS]));
    expect(RUNTIME_FAILURE_REASONS).toEqual(expect.arrayContaining([...DRIVER_FAILURE_REASONS]));
  });
});

describe('producers give reasons of their family', () => {
  const secrets = new SecretRegistry();
  const ctx = (signal = new AbortController().signal) => ({
    toolName: 'echo',
    server: 's',
    signal,
    timeoutMs: 1000,
    secrets,
  });
  const reasonOf = (err: MusterError) => err.details.reason;
  const caught = (fn: () => unknown): MusterError => {
    try {
      fn();
    } catch (err) {
      if (MusterError.isInstance(err)) return err;
      throw err;
    }
    throw new Error('expected a throw');
  };

  it('MCP transport failures', () => {
    const errors = [
      notSentError('s'),
      streamLostError('s'),
      lostError('s', { code: 1, signal: null }),
    ];
    for (const e of errors) expect(MCP_FAILURE_REASONS).toContain(reasonOf(e));
    expect(reasonOf(authError('s', 'no-login', 'm'))).toBe('no-login');
  });

  it('classified call errors', () => {
    const aborted = new AbortController();
    aborted.abort();
    const errors = [
      classifyCallError(notSentError('s'), ctx()),
      classifyCallError(streamLostError('s'), ctx()),
      classifyCallError(new Error('boom'), ctx()),
      classifyCallError(new Error('boom'), ctx(aborted.signal)),
    ];
    expect(errors.map(reasonOf)).toEqual(['not-sent', 'disconnected', 'unknown', 'aborted']);
    for (const e of errors) {
      const family = ToolError.isInstance(e) ? TOOL_FAILURE_REASONS : MCP_FAILURE_REASONS;
      expect(family).toContain(reasonOf(e));
    }
    const op = operationFailure('s', 'Listing tools', notSentError('s'), secrets);
    expect(op.details.reason === undefined || MCP_FAILURE_REASONS.includes(op.details.reason)).toBe(
      true,
    );
  });

  it('the remaining codes', () => {
    const corrupt = caught(() => parseCredentials('not json', '/tmp/credentials.json'));
    expect(corrupt.code).toBe('INVALID_CONFIGURATION');
    expect(corrupt.details).toMatchObject({ reason: 'token-file-corrupt', problem: 'not JSON' });
    const limits = { maxTokens: 1, maxMessages: 1, maxBytes: 1 };
    const size = { tokens: 10, messages: 10, bytes: 10 };
    for (const e of [
      corrupt,
      contextLimitError(size, limits),
      contextLimitError(size, limits, 5),
      summarizerError('summarizer-failed'),
    ])
      expect(RUNTIME_FAILURE_REASONS).toContain(reasonOf(e));
  });

  it('session store failures', () => {
    const coded = (code: string) => Object.assign(new Error('m'), { code });
    const target = postgresTarget({ connectionString: 'postgres://u@h/d' });
    const facts = { path: 'sessions.db', busyTimeoutMs: 1 };
    const errors = [
      ...['SQLITE_BUSY', 'SQLITE_NOTADB', 'SQLITE_FULL', 'SQLITE_READONLY_DBMOVED'].map((c) =>
        sqliteStoreError(coded(c), facts),
      ),
      ...['ECONNREFUSED', 'ENOTFOUND', '28P01', '3D000', '42501'].map((c) =>
        postgresStoreError(coded(c), target),
      ),
    ] as MusterError<'SESSION_STORE_FAILED'>[];
    expect(errors.map((e) => sessionAdvice(e))).toEqual([
      'close the other process',
      'restore from a backup',
      'free space',
      'fix the permissions',
      'start the server',
      'fix the host',
      'fix the credentials',
      'create the database',
      'fix the permissions',
    ]);
    for (const e of errors) expect(SESSION_FAILURE_REASONS).toContain(reasonOf(e));
  });
});
