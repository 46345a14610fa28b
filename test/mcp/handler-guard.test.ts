import { describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import { answerElicitation } from '../../src/mcp/handlers/elicitation-handler.js';
import { guardHandler } from '../../src/mcp/handlers/handler-guard.js';
import { listRoots } from '../../src/mcp/handlers/roots-handler.js';

// Host handlers get a deadline and honour the abort of the request they answer.

const never = () => new Promise<never>(() => undefined);

describe('guardHandler', () => {
  it('does not start a handler once the signal aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let started = false;
    const err = await guardHandler('The handler', 60_000, controller.signal, () => {
      started = true;
      return 1;
    }).catch((e: unknown) => e);
    expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
    expect(started).toBe(false);
  });

  it('rejects with ABORTED when the signal aborts mid-handler, long before the deadline', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const running = guardHandler('The handler', 600_000, controller.signal, (signal) => {
      seen = signal;
      return never();
    }).catch((e: unknown) => e);
    await Promise.resolve();
    controller.abort();
    const err = await running;
    expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
    expect(seen?.aborted).toBe(true);
  }, 10_000);
});

describe('the other host callbacks get the same deadline', () => {
  it('a roots function that never answers is cut off at the deadline', async () => {
    const err = await listRoots(never, 's', 50, new AbortController().signal).catch(
      (e: unknown) => e,
    );
    expect(String((err as Error).message)).toContain('handlerTimeoutMs');
  }, 10_000);

  it('an onElicitationResult hook that never answers is cut off at the deadline', async () => {
    const err = await answerElicitation(
      { server: 's', mode: 'form', message: 'ok?' },
      { server: 's', signal: new AbortController().signal },
      {
        handler: async () => ({ action: 'decline' }),
        hooks: { onElicitationResult: never },
        timeoutMs: 50,
        emit: () => undefined,
      },
    ).catch((e: unknown) => e);
    expect(String((err as Error).message)).toContain('handlerTimeoutMs');
  }, 10_000);
});

describe('an elicitation answered park', () => {
  it('is cancel on an in-flight elicitation/create, which cannot park (SPEC 15.1)', async () => {
    const events: { action?: string }[] = [];
    const answer = await answerElicitation(
      { server: 's', mode: 'form', message: 'ok?', requestedSchema: { type: 'object' } },
      { server: 's', signal: new AbortController().signal },
      {
        handler: async () => ({ action: 'park' }),
        hooks: {},
        timeoutMs: 1_000,
        emit: (e) => events.push(e as { action?: string }),
      },
    );
    expect(answer).toEqual({ action: 'cancel' });
    expect(events.at(-1)).toMatchObject({ action: 'cancel' });
  });
});
