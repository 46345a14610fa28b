import { describe, expect, it } from 'vitest';
import * as api from '../index.js';
import {
  MUSTER_ERROR_CODES,
  McpError,
  ModelError,
  MusterError,
  SessionError,
  ToolError,
} from './index.js';
import type { MusterErrorCode } from './index.js';

type ErrorClass = (new (code: MusterErrorCode, message: string, options?: object) => Error) & {
  isInstance(value: unknown): boolean;
};

/** Every exported class whose prototype chain includes Error. */
function exportedErrorClasses(): Array<[string, ErrorClass]> {
  const found: Array<[string, ErrorClass]> = [];
  for (const [name, value] of Object.entries(api as Record<string, unknown>)) {
    if (typeof value === 'function' && value.prototype instanceof Error) {
      found.push([name, value as ErrorClass]);
    }
  }
  return found;
}

/** A code of the family an error class is named after (`ToolError` → `TOOL_*`). */
function codeFor(className: string): MusterErrorCode {
  const family = className.replace(/Error$/, '').toUpperCase();
  return MUSTER_ERROR_CODES.find((c) => c.startsWith(`${family}_`)) ?? 'INVALID_CONFIGURATION';
}

describe('MUSTER_ERROR_CODES', () => {
  it('are unique non-empty strings in SCREAMING_SNAKE_CASE', () => {
    for (const code of MUSTER_ERROR_CODES) {
      expect(typeof code).toBe('string');
      expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
    }
    expect(new Set(MUSTER_ERROR_CODES).size).toBe(MUSTER_ERROR_CODES.length);
  });

  it('list every code the spec names', () => {
    expect([...MUSTER_ERROR_CODES].sort()).toEqual(
      [
        'INVALID_CONFIGURATION',
        'MCP_CONNECTION_FAILED',
        'MCP_DISCONNECTED',
        'MCP_AUTH_REQUIRED',
        'MCP_OPERATION_FAILED',
        'MCP_EXTENSION_UNSUPPORTED',
        'TOOL_NOT_FOUND',
        'TOOL_DENIED',
        'TOOL_APPROVAL_REQUIRED',
        'TOOL_ARGUMENTS_INVALID',
        'TOOL_RESULT_TOO_LARGE',
        'TOOL_EXECUTION_FAILED',
        'TOOL_OUTCOME_UNKNOWN',
        'TOOL_NAME_CONFLICT',
        'REGISTRY_BUSY',
        'SESSION_ALREADY_RUNNING',
        'SESSION_NOT_FOUND',
        'SESSION_STORE_FAILED',
        'AGENT_LIMIT_EXCEEDED',
        'MODEL_REQUEST_FAILED',
        'MODEL_RESPONSE_INVALID',
        'OUTPUT_INVALID',
        'BUDGET_EXHAUSTED',
        'WAIT_NOT_FOUND',
        'WAIT_STALE',
        'PRINCIPAL_MISMATCH',
        'ABORTED',
        'INTERNAL_ERROR',
      ].sort(),
    );
  });

  it('are the codes exported at the root', () => {
    expect(api.MUSTER_ERROR_CODES).toBe(MUSTER_ERROR_CODES);
  });
});

describe('MusterError', () => {
  it('carries code, message, name and details', () => {
    const err = new MusterError('INVALID_CONFIGURATION', 'bad config', {
      details: { field: 'x' },
    });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: 'bad config',
      name: 'MusterError',
      details: { field: 'x' },
    });
    expect(new MusterError('ABORTED', 'stopped').details).toEqual({});
  });

  it('serializes code, message and details with toJSON', () => {
    const err = new MusterError('REGISTRY_BUSY', 'busy', {
      details: { server: 's' },
      cause: new Error('hidden'),
    });
    expect(err.toJSON()).toEqual({
      name: 'MusterError',
      code: 'REGISTRY_BUSY',
      message: 'busy',
      details: { server: 's' },
    });
    expect(JSON.parse(JSON.stringify(err))).toEqual(err.toJSON());
    expect(new ToolError('TOOL_DENIED', 'no').toJSON()).toEqual({
      name: 'ToolError',
      code: 'TOOL_DENIED',
      message: 'no',
      details: {},
    });
  });

  it('keeps a redacted copy of the cause, and has none when none is given', () => {
    const cause = new TypeError('root cause with Bearer abc.def');
    const made = [
      new MusterError('MODEL_REQUEST_FAILED', 'm', { cause }),
      new ToolError('TOOL_EXECUTION_FAILED', 'm', { cause }),
      new McpError('MCP_DISCONNECTED', 'm', { cause }),
      new ModelError('MODEL_REQUEST_FAILED', 'm', { cause }),
      new SessionError('SESSION_NOT_FOUND', 'm', { cause, sessionId: 's' }),
    ];
    for (const err of made) {
      expect(err.cause).toBeInstanceOf(TypeError);
      expect((err.cause as Error).message).toBe('root cause with Bearer [redacted]');
    }
    const inner = new ToolError('TOOL_DENIED', 'inner');
    expect(new MusterError('INTERNAL_ERROR', 'm', { cause: inner }).cause).toBe(inner);
    expect('cause' in new MusterError('ABORTED', 'm')).toBe(false);
    expect(new MusterError('ABORTED', 'm', { cause: 'a string' }).cause).toBe('a string');
  });
});

describe('MusterError.isInstance', () => {
  it('is true for MusterError and every subclass', () => {
    const errors = [
      new MusterError('INVALID_CONFIGURATION', 'm'),
      new ToolError('TOOL_DENIED', 'm', { toolName: 't' }),
      new McpError('MCP_AUTH_REQUIRED', 'm', { server: 's' }),
      new ModelError('MODEL_RESPONSE_INVALID', 'm', { status: 500, isRetryable: true }),
      new SessionError('SESSION_ALREADY_RUNNING', 'm', { sessionId: 's' }),
    ];
    for (const err of errors) expect(MusterError.isInstance(err)).toBe(true);
  });

  it('is true for an error from another copy of the package (the Symbol.for brand)', () => {
    const brand: unique symbol = Symbol.for('muster.error');
    class ForeignError extends Error {
      readonly code = 'TOOL_DENIED';
      readonly [brand] = true;
    }
    expect(MusterError.isInstance(new ForeignError('elsewhere'))).toBe(true);
    expect(new ForeignError('elsewhere')).not.toBeInstanceOf(MusterError);
    expect(MusterError.isInstance({ [Symbol.for('muster.error')]: true, code: 'ABORTED' })).toBe(
      true,
    );
  });

  it('is false for plain errors and other values', () => {
    for (const value of [
      new Error('plain'),
      new TypeError('type'),
      { code: 'TOOL_DENIED', message: 'looks alike' },
      { [Symbol('muster.error')]: true },
      { [Symbol.for('muster.error')]: 'true' },
      null,
      undefined,
      'TOOL_DENIED',
      42,
    ]) {
      expect(MusterError.isInstance(value)).toBe(false);
    }
  });
});

describe('error subclasses', () => {
  it('carry their own fields', () => {
    expect(new ToolError('TOOL_NOT_FOUND', 'm', { toolName: 'x' })).toMatchObject({
      name: 'ToolError',
      code: 'TOOL_NOT_FOUND',
      toolName: 'x',
    });
    expect(new McpError('MCP_CONNECTION_FAILED', 'm', { server: 'gh' })).toMatchObject({
      name: 'McpError',
      server: 'gh',
    });
    expect(
      new ModelError('MODEL_REQUEST_FAILED', 'm', { status: 429, isRetryable: true }),
    ).toMatchObject({ name: 'ModelError', status: 429, isRetryable: true });
    expect(new ModelError('MODEL_REQUEST_FAILED', 'm').isRetryable).toBe(false);
    expect(new SessionError('SESSION_NOT_FOUND', 'm', { sessionId: 's1' })).toMatchObject({
      name: 'SessionError',
      sessionId: 's1',
    });
  });

  it('are instances of MusterError and Error', () => {
    const err = new ToolError('TOOL_DENIED', 'm');
    expect(err).toBeInstanceOf(ToolError);
    expect(err).toBeInstanceOf(MusterError);
    expect(err).toBeInstanceOf(Error);
    expect(err.stack).toEqual(expect.any(String));
  });
});

describe('exported errors', () => {
  it('every error class exported from src/index.ts carries the brand', () => {
    const classes = exportedErrorClasses();
    expect(classes.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'MusterError',
        'ToolError',
        'McpError',
        'ModelError',
        'SessionError',
      ]),
    );
    const cause = new Error('cause');
    const options = {
      cause,
      details: { k: 1 },
      toolName: 't',
      server: 's',
      sessionId: 'session-1',
      status: 503,
      isRetryable: true,
    };
    for (const [name, ErrorClass] of classes) {
      const code = codeFor(name);
      const instance = new ErrorClass(code, 'msg', options);
      expect({ name, branded: MusterError.isInstance(instance) }).toEqual({
        name,
        branded: true,
      });
      expect(instance).toMatchObject({ code, message: 'msg' });
      expect((instance.cause as Error).message).toBe(cause.message);
    }
  });

  it('each class has its own brand: isInstance is true for its own family only', () => {
    const classes = exportedErrorClasses();
    const options = { toolName: 't', server: 's', sessionId: 'session-1' };
    const instances = classes.map(
      ([name, ErrorClass]) => [name, new ErrorClass(codeFor(name), 'msg', options)] as const,
    );
    for (const [checker, CheckerClass] of classes) {
      for (const [made, instance] of instances) {
        // only the root recognizes every family; a family recognizes only its own errors
        const expected = checker === 'MusterError' || checker === made;
        expect({ checker, made, recognized: CheckerClass.isInstance(instance) }).toEqual({
          checker,
          made,
          recognized: expected,
        });
      }
    }
  });

  it('family brands are Symbol.for keys, so another copy of the package is recognized', () => {
    for (const [family, ErrorClass] of [
      ['tool', ToolError],
      ['mcp', McpError],
      ['model', ModelError],
      ['session', SessionError],
    ] as const) {
      const foreign = {
        [Symbol.for('muster.error')]: true,
        [Symbol.for(`muster.error.${family}`)]: true,
      };
      expect(ErrorClass.isInstance(foreign)).toBe(true);
      expect(MusterError.isInstance(foreign)).toBe(true);
      expect(ErrorClass.isInstance({ [Symbol.for('muster.error')]: true })).toBe(false);
    }
  });

  it('codeFor picks a code of each family', () => {
    expect(codeFor('ToolError')).toMatch(/^TOOL_/);
    expect(codeFor('McpError')).toMatch(/^MCP_/);
    expect(codeFor('ModelError')).toMatch(/^MODEL_/);
    expect(codeFor('SessionError')).toMatch(/^SESSION_/);
    expect(codeFor('MusterError')).toBe('INVALID_CONFIGURATION');
  });
});
