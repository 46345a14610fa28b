import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import { decisionFromFlags } from './decide-flags.js';
import type { DecideFlags } from './decide-flags.js';

function refusal(flags: DecideFlags): MusterError {
  try {
    decisionFromFlags(flags);
  } catch (err) {
    if (MusterError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('decisionFromFlags', () => {
  it.each<[string, DecideFlags, unknown]>([
    ['--allow', { allow: true, reason: 'ok' }, { decision: 'allow', reason: 'ok' }],
    ['--deny', { deny: true }, { decision: 'deny' }],
    ['--redirect', { redirect: ' Pay 5. ' }, { decision: 'redirect', message: 'Pay 5.' }],
    [
      'a content object',
      { answer: '{"name":"Ana"}' },
      { action: 'accept', content: { name: 'Ana' } },
    ],
    [
      'a whole accept',
      { answer: '{"action":"accept","content":{"action":"x","n":1}}' },
      { action: 'accept', content: { action: 'x', n: 1 } },
    ],
    [
      'a decline',
      { answer: '{"action":"decline"}', reason: 'no' },
      { action: 'decline', reason: 'no' },
    ],
    // an object with more keys than action and content is the form's content itself
    [
      'a form with an action field',
      { answer: '{"action":"ship","qty":2}' },
      { action: 'accept', content: { action: 'ship', qty: 2 } },
    ],
  ])('reads %s', (_, flags, decision) => {
    expect(decisionFromFlags(flags).decision).toEqual(decision);
  });

  it('passes the fingerprint on, lower-cased', () => {
    const hex = 'AB'.repeat(32);
    expect(decisionFromFlags({ allow: true, fingerprint: hex }).fingerprint).toBe('ab'.repeat(32));
  });

  it.each<[DecideFlags, string, RegExp]>([
    [{}, '--allow|--deny|--redirect|--answer', /needs a decision/],
    [{ allow: true, redirect: 'x' }, '--allow --redirect', /not --allow and --redirect/],
    [{ redirect: '  ' }, '--redirect', /--redirect .* is empty/],
    [{ answer: 'yes' }, '--answer', /--answer takes JSON/],
    [{ answer: '[1]' }, '--answer', /--answer takes a JSON object/],
    [
      { answer: '{"action":"maybe"}' },
      '--answer',
      /action must be "accept", "decline" or "cancel"/,
    ],
    [
      { answer: '{"action":"cancel","content":{"a":1}}' },
      '--answer',
      /only "accept" carries content/,
    ],
    [{ allow: true, fingerprint: 'xyz' }, '--fingerprint', /--fingerprint takes .*64 hex digits/],
  ])('refuses %j, naming %s', (flags, flag, message) => {
    const err = refusal(flags);
    expect(err.code).toBe('INVALID_CONFIGURATION');
    expect(err.details.flag).toBe(flag);
    expect(err.message).toMatch(message);
  });
});
