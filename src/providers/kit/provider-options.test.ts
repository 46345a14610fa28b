import { describe, expect, it } from 'vitest';
import { MusterError } from '../../errors/index.js';
import { mergeProviderOptions, refuseOutputOverrides } from './index.js';

const RESERVED = ['model', 'messages'];

describe('mergeProviderOptions', () => {
  it('adds the fields of its own provider id and leaves the body as it was', () => {
    const body = { model: 'm', messages: [] };
    const merged = mergeProviderOptions(
      body,
      { acme: { temperature: 0, user: undefined }, other: { top_k: 1 } },
      'acme',
      RESERVED,
      'acme.chat',
    );
    expect(merged).toEqual({ model: 'm', messages: [], temperature: 0 });
    expect(body).toEqual({ model: 'm', messages: [] });
  });

  it('returns the body unchanged without an entry for the provider', () => {
    const body = { model: 'm' };
    expect(mergeProviderOptions(body, undefined, 'acme', RESERVED, 'acme.chat')).toBe(body);
    expect(mergeProviderOptions(body, { other: { x: 1 } }, 'acme', RESERVED, 'acme.chat')).toBe(
      body,
    );
  });

  it.each([
    ['messages', 'the request itself owns it'],
    ['max_tokens', 'a request option already sets it'],
  ])('refuses %s with INVALID_CONFIGURATION', (option, reason) => {
    const body = { model: 'm', max_tokens: 5 };
    let caught: unknown;
    try {
      mergeProviderOptions(body, { acme: { [option]: 1 } }, 'acme', RESERVED, 'acme.chat');
    } catch (err) {
      caught = err;
    }
    expect(MusterError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { provider: 'acme.chat', providerId: 'acme', option },
    });
    expect((caught as Error).message).toContain(reason);
  });
});

describe('refuseOutputOverrides', () => {
  const refused = (run: () => void): unknown => {
    try {
      run();
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it('refuses a nested field of a listed entry, naming it', () => {
    const err = refused(() =>
      refuseOutputOverrides(
        { acme: { output_config: { effort: 'low', format: {} } } },
        ['acme'],
        ['output_config.format'],
        'acme.chat',
      ),
    );
    expect(MusterError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { provider: 'acme.chat', providerId: 'acme', option: 'output_config.format' },
    });
    expect((err as Error).message).toContain('run({ output })');
  });

  it('lets through other fields, unlisted entries and undefined values', () => {
    const options = {
      acme: { output_config: { effort: 'low' }, tool_choice: undefined },
      other: { tool_choice: 'auto' },
    };
    const fields = ['output_config.format', 'tool_choice'];
    expect(refused(() => refuseOutputOverrides(options, ['acme'], fields, 'p'))).toBeUndefined();
    expect(refused(() => refuseOutputOverrides(options, 'all', fields, 'p'))).toMatchObject({
      details: { providerId: 'other', option: 'tool_choice' },
    });
  });
});
