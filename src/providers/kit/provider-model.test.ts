import { describe, expect, it } from 'vitest';
import { ModelError, MusterError } from '../../errors/index.js';
import type { ModelPart, ModelRequest } from '../../model/index.js';
import { providerModel } from './provider-model.js';

const REQUEST: ModelRequest = { modelName: 'm', messages: [], tools: [], stream: true };

function model(turn: () => AsyncIterable<ModelPart>, log: string[] = []) {
  return providerModel<object>({
    provider: 'test.kit',
    client: () => ({}),
    turn,
    failure: (err) => {
      log.push('mapped');
      return new ModelError('MODEL_REQUEST_FAILED', `mapped: ${(err as Error).message}`);
    },
  });
}

async function drain(parts: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

describe('providerModel', () => {
  it('passes the vendor turn through and maps a failure in the middle of it', async () => {
    const m = model(async function* () {
      yield { type: 'text-delta', text: 'a' };
      throw new Error('reset');
    });
    const seen: ModelPart[] = [];
    const failure = await (async () => {
      for await (const p of m.generate(REQUEST, { signal: new AbortController().signal }))
        seen.push(p);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ type: 'text-delta', text: 'a' }]);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as Error).message).toBe('mapped: reset');
  });

  it('refuses an aborted signal on the first next(), unmapped, before the turn starts', async () => {
    const log: string[] = [];
    let started = false;
    const m = model(async function* () {
      started = true;
      yield { type: 'text-delta', text: 'a' };
    }, log);
    const controller = new AbortController();
    controller.abort();
    const err = await drain(m.generate(REQUEST, { signal: controller.signal })).catch(
      (e: unknown) => e,
    );
    expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
    expect(started).toBe(false);
    expect(log).toEqual([]);
  });

  it('a consumer that stops early ends the vendor turn (its finally runs)', async () => {
    let closed = false;
    const m = model(async function* () {
      try {
        yield { type: 'text-delta', text: 'a' };
        yield { type: 'text-delta', text: 'b' };
      } finally {
        closed = true;
      }
    });
    for await (const _p of m.generate(REQUEST, { signal: new AbortController().signal })) break;
    expect(closed).toBe(true);
  });
});
