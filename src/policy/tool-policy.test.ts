import { describe, expect, it, vi } from 'vitest';
import { DECIDE_AT_ONCE, ToolPolicy } from './index.js';
import type { AuthorizationEvent, AuthorizationRequest, PolicyOptions } from './index.js';

const signal = new AbortController().signal;

function req(name: string, extra: Partial<AuthorizationRequest> = {}): AuthorizationRequest {
  return {
    kind: 'tool',
    capability: name,
    toolName: name,
    source: 'host',
    arguments: { secret: 'ARG-CANARY' },
    sessionId: 's1',
    runId: 'r1',
    callId: 'c1',
    ...extra,
  };
}

async function decide(options: PolicyOptions, request = req('write_file')) {
  return new ToolPolicy(options).authorize(request, { signal });
}

describe('ToolPolicy stages', () => {
  it('deny beats allow, rules and an approving approver', async () => {
    const approve = vi.fn(() => true);
    const rule = { id: 'r', authorize: vi.fn(() => 'allow' as const) };
    const d = await decide({
      deny: ['write_*'],
      allow: ['write_file'],
      rules: [rule],
      default: 'allow',
      approve,
    });
    expect(d).toMatchObject({ decision: 'deny', stage: 'deny', code: 'TOOL_DENIED' });
    expect(rule.authorize).not.toHaveBeenCalled();
    expect(approve).not.toHaveBeenCalled();
  });

  it('rules run before allow: a denying rule beats an allow pattern', async () => {
    const d = await decide({
      allow: ['write_file'],
      rules: [
        { id: 'no-writes', authorize: () => ({ decision: 'deny', reason: 'read-only window' }) },
      ],
    });
    expect(d).toMatchObject({
      decision: 'deny',
      stage: 'rule',
      ruleId: 'no-writes',
      reason: 'read-only window',
    });
  });

  it('the first deciding rule wins and abstaining rules are skipped', async () => {
    const third = vi.fn(() => 'deny' as const);
    const d = await decide({
      rules: [
        { id: 'abstain', authorize: () => undefined },
        {
          id: 'allow-it',
          authorize: async () => ({
            decision: 'allow',
            reason: 'tenant match',
            metadata: { tenant: 't1' },
          }),
        },
        { id: 'never', authorize: third },
      ],
    });
    expect(d).toMatchObject({
      decision: 'allow',
      stage: 'rule',
      ruleId: 'allow-it',
      metadata: { tenant: 't1' },
    });
    expect(third).not.toHaveBeenCalled();
  });

  it('allow pre-approves without asking', async () => {
    const approve = vi.fn(() => false);
    expect(await decide({ allow: ['write_file'], approve })).toMatchObject({
      decision: 'allow',
      stage: 'allow',
    });
    expect(approve).not.toHaveBeenCalled();
  });

  it("default 'ask' without an approver denies with TOOL_APPROVAL_REQUIRED", async () => {
    expect(await decide({})).toMatchObject({
      decision: 'deny',
      stage: 'default',
      code: 'TOOL_APPROVAL_REQUIRED',
    });
  });

  it('parks: policy.park with no approver, an approver answering park; never a connection, a rule or without waits', async () => {
    expect(await decide({ park: true })).toMatchObject({ decision: 'park', stage: 'approval' });
    const parking = { approve: () => ({ decision: 'park' as const, reason: 'later' }) };
    expect(await decide(parking)).toMatchObject({ decision: 'park', reason: 'later' });
    const connection: AuthorizationRequest = {
      kind: 'connection',
      capability: 'mcp_connect:fs',
      server: 'fs',
      sessionId: 's',
      runId: 'r',
    };
    const refused = await new ToolPolicy(parking).authorize(connection, { signal });
    expect(refused).toMatchObject({ decision: 'deny', code: 'TOOL_DENIED' });
    expect(refused.reason).toContain('cannot park');
    const sampling = { ...connection, kind: 'sampling' as const, capability: 'mcp_sampling:fs' };
    expect((await new ToolPolicy(parking).authorize(sampling, { signal })).reason).toContain(
      'cannot park',
    );
    const noWaits = await new ToolPolicy(parking).authorize(req('write_file'), {
      signal,
      canPark: false,
    });
    expect(noWaits).toMatchObject({ decision: 'deny', code: 'TOOL_APPROVAL_REQUIRED' });
    const rule = { id: 'r1', authorize: () => ({ decision: 'park' as const }) };
    expect(await decide({ rules: [rule] })).toMatchObject({ decision: 'deny', ruleId: 'r1' });
  });

  it('applies a decision already taken instead of asking, and binds approvals to a version', async () => {
    let asked = 0;
    const approve = () => {
      asked++;
      return true;
    };
    const decided = await new ToolPolicy({ approve }).authorize(req('write_file'), {
      signal,
      decided: () => ({ decision: 'deny', reason: 'no' }),
    });
    expect(decided).toMatchObject({ decision: 'deny', stage: 'approval', reason: 'no' });
    expect(asked).toBe(0);
    expect(new ToolPolicy({ version: 'v7' }).version).toBe('v7');
    expect(new ToolPolicy({ deny: ['a'] }).version).toBe(new ToolPolicy({ deny: ['a'] }).version);
    expect(new ToolPolicy({ deny: ['a'] }).version).not.toBe(
      new ToolPolicy({ deny: ['b'] }).version,
    );
    expect(() => new ToolPolicy({ park: 'yes' as never })).toThrow(/policy.park/);
  });

  it("default 'allow' and 'deny' decide without asking", async () => {
    expect(await decide({ default: 'allow' })).toMatchObject({
      decision: 'allow',
      stage: 'default',
    });
    expect(await decide({ default: 'deny' })).toMatchObject({
      decision: 'deny',
      stage: 'default',
      code: 'TOOL_DENIED',
    });
  });

  it('asks the approver with the exact request and maps its answers', async () => {
    const seen: AuthorizationRequest[] = [];
    const approve = (r: AuthorizationRequest) => {
      seen.push(r);
      return true;
    };
    const onApprovalRequested = vi.fn();
    const d = await new ToolPolicy({ approve }).authorize(req('write_file'), {
      signal,
      onApprovalRequested,
    });
    expect(d).toMatchObject({ decision: 'allow', stage: 'approval' });
    expect(seen[0]?.arguments).toEqual({ secret: 'ARG-CANARY' });
    expect(onApprovalRequested).toHaveBeenCalledOnce();
    expect(await decide({ approve: () => false })).toMatchObject({
      decision: 'deny',
      stage: 'approval',
      code: 'TOOL_DENIED',
    });
    expect(
      await decide({ approve: () => ({ decision: 'redirect', message: 'Read it first.' }) }),
    ).toMatchObject({
      decision: 'redirect',
      message: 'Read it first.',
    });
  });

  it('fails closed on a throwing rule, a throwing approver, and invalid answers', async () => {
    expect(
      await decide({
        default: 'allow',
        rules: [
          {
            id: 'boom',
            authorize: () => {
              throw new Error('db down');
            },
          },
        ],
      }),
    ).toMatchObject({
      decision: 'deny',
      stage: 'rule',
      ruleId: 'boom',
    });
    expect(await decide({ approve: () => Promise.reject(new Error('ui gone')) })).toMatchObject({
      decision: 'deny',
      stage: 'approval',
    });
    expect(await decide({ approve: () => ({ decision: 'maybe' }) as never })).toMatchObject({
      decision: 'deny',
    });
    expect(await decide({ approve: () => ({ decision: 'redirect' }) })).toMatchObject({
      decision: 'deny',
      reason: 'redirect without a message',
    });
    expect(
      await decide({ approve: () => ({ decision: 'redirect', message: '   ' }) }),
    ).toMatchObject({ decision: 'deny' });
  });

  it('rejects with ABORTED when the signal fires during approval', async () => {
    const ac = new AbortController();
    const policy = new ToolPolicy({
      approve: (_r, s) =>
        new Promise((_resolve, reject) => {
          s.addEventListener('abort', () => reject(new Error('closed')));
          ac.abort();
        }),
    });
    await expect(policy.authorize(req('x'), { signal: ac.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('authorizes connections as mcp_connect:<server> through the same stages', async () => {
    const conn = (server: string): AuthorizationRequest => ({
      kind: 'connection',
      capability: `mcp_connect:${server}`,
      server,
      sessionId: 's',
      runId: 'r',
    });
    const policy = new ToolPolicy({
      deny: ['mcp_connect:evil'],
      allow: ['mcp_connect:*', '*'],
      default: 'deny',
    });
    expect(await policy.authorize(conn('evil'), { signal })).toMatchObject({
      decision: 'deny',
      stage: 'deny',
    });
    expect(await policy.authorize(conn('docs'), { signal })).toMatchObject({
      decision: 'allow',
      stage: 'allow',
    });
    const toolsOnly = new ToolPolicy({ allow: ['*'], default: 'deny' });
    expect(await toolsOnly.authorize(conn('docs'), { signal })).toMatchObject({
      decision: 'deny',
      stage: 'default',
    });
    const redirecting = new ToolPolicy({
      rules: [{ id: 'r', authorize: () => ({ decision: 'redirect', message: 'no' }) }],
    });
    expect(await redirecting.authorize(conn('docs'), { signal })).toMatchObject({
      decision: 'deny',
      reason: 'connections cannot be redirected',
    });
  });
});

describe('ToolPolicy observer', () => {
  it('sees every final decision and never the arguments', async () => {
    const events: AuthorizationEvent[] = [];
    const policy = new ToolPolicy({
      allow: ['a'],
      default: 'deny',
      observer: (e) => void events.push(e),
    });
    await policy.authorize(req('a'), { signal });
    await policy.authorize(req('b'), { signal });
    expect(events.map((e) => [e.toolName, e.decision, e.stage])).toEqual([
      ['a', 'allow', 'allow'],
      ['b', 'deny', 'default'],
    ]);
    expect(JSON.stringify(events)).not.toContain('ARG-CANARY');
    expect(events[0]).not.toHaveProperty('arguments');
  });

  it('cannot change the outcome when it throws or rejects; failures are reported', async () => {
    const errors: unknown[] = [];
    const throwing = new ToolPolicy({
      allow: ['a'],
      observer: () => {
        throw new Error('telemetry down');
      },
    });
    const d = await throwing.authorize(req('a'), {
      signal,
      onObserverError: (e) => errors.push(e),
    });
    expect(d.decision).toBe('allow');
    const rejecting = new ToolPolicy({
      default: 'deny',
      observer: () => Promise.reject(new Error('async down')),
    });
    const d2 = await rejecting.authorize(req('a'), {
      signal,
      onObserverError: (e) => errors.push(e),
    });
    expect(d2.decision).toBe('deny');
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    expect(String(errors[0])).toContain('telemetry down');
  });
});

describe('ToolPolicy configuration', () => {
  it.each([
    [{ default: 'sometimes' }],
    [{ approve: 'yes' }],
    [{ rules: [{ id: '', authorize: () => undefined }] }],
    [
      {
        rules: [
          { id: 'a', authorize: () => undefined },
          { id: 'a', authorize: () => undefined },
        ],
      },
    ],
    [{ deny: ['bad pattern'] }],
    [{ visibleTools: 'x' }],
    [{ observer: 1 }],
  ])('rejects %j with INVALID_CONFIGURATION', (options) => {
    expect(() => new ToolPolicy(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('visibility: absent means everything, a list hides the rest, connections are never hidden', () => {
    expect(new ToolPolicy({}).isVisible({ kind: 'tool', name: 'x' })).toBe(true);
    const p = new ToolPolicy({ visibleTools: ['mcp__fs__read*'] });
    expect(p.isVisible({ kind: 'tool', name: 'mcp__fs__read_file', server: 'fs' })).toBe(true);
    expect(p.isVisible({ kind: 'tool', name: 'mcp__fs__write_file', server: 'fs' })).toBe(false);
    expect(p.isVisible({ kind: 'connection', server: 'fs' })).toBe(true);
  });
});

describe('ToolPolicy decisions taken at once', () => {
  const configs: PolicyOptions[] = [
    { deny: ['write_*'], allow: ['write_file'] },
    { allow: ['write_file'] },
    { allow: ['read_*'] },
    { default: 'allow' },
    { default: 'deny' },
    { default: 'ask' },
    { default: 'ask', park: true },
    { approve: () => true },
    { rules: [{ id: 'r', authorize: () => undefined }], allow: ['write_file'] },
    { rules: [{ id: 'r', authorize: () => 'deny' as const }], deny: ['write_*'] },
  ];

  it('decides as authorize does whenever it decides, and leaves rules and approvers to it', async () => {
    const requests = [
      req('write_file'),
      req('read_file'),
      req('context', { source: 'builtin' }),
      req('mcp_connect:docs', { kind: 'connection', server: 'docs' }),
    ];
    let atOnce = 0;
    for (const options of configs) {
      for (const request of requests) {
        const policy = new ToolPolicy(options);
        const now = policy[DECIDE_AT_ONCE](request);
        const later = await new ToolPolicy(options).authorize(request, { signal, canPark: true });
        if (now === undefined) {
          // only what needs a rule, the approver or a wait is left to authorize
          expect(
            (options.rules?.length ?? 0) > 0 ||
              later.stage === 'approval' ||
              later.decision === 'park' ||
              later.code === 'TOOL_APPROVAL_REQUIRED',
          ).toBe(true);
        } else {
          atOnce++;
          expect(now).toEqual(later);
        }
      }
    }
    expect(atOnce).toBeGreaterThan(10);
  });

  it('tells the observer nothing itself: the caller notifies it once', () => {
    const observer = vi.fn();
    const policy = new ToolPolicy({ allow: ['write_file'], observer });
    const decision = policy[DECIDE_AT_ONCE](req('write_file'));
    expect(decision).toMatchObject({ decision: 'allow', stage: 'allow' });
    expect(observer).not.toHaveBeenCalled();
  });
});
