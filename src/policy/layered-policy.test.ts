import { describe, expect, it, vi } from 'vitest';
import { LayeredPolicy, ToolPolicy } from './index.js';
import type { AuthorizationEvent, AuthorizationRequest, PolicySubject } from './index.js';

const signal = new AbortController().signal;

function req(name: string, extra: Partial<AuthorizationRequest> = {}): AuthorizationRequest {
  return {
    kind: 'tool',
    capability: name,
    toolName: name,
    source: 'host',
    arguments: {},
    sessionId: 's1',
    runId: 'r1',
    callId: 'c1',
    ...extra,
  };
}

const tool = (name: string): PolicySubject => ({ kind: 'tool', name });

describe('LayeredPolicy', () => {
  it('needs a layer', () => {
    expect(() => new LayeredPolicy([])).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('shows a tool only when every layer shows it (a child cannot widen)', () => {
    const policy = new LayeredPolicy([
      { policy: new ToolPolicy({ visibleTools: ['read', 'write', 'secret'] }) },
      { policy: new ToolPolicy({ visibleTools: ['read', 'write'] }) },
      { policy: new ToolPolicy({ visibleTools: ['read'] }) },
    ]);
    expect(policy.isVisible(tool('read'))).toBe(true);
    expect(policy.isVisible(tool('write'))).toBe(false);
    expect(policy.isVisible(tool('secret'))).toBe(false);
    expect(policy.isVisible({ kind: 'connection', server: 'x' })).toBe(true);
  });

  it("the layers outside a tool's owner do not govern its visibility", () => {
    const policy = new LayeredPolicy([
      { policy: new ToolPolicy({ visibleTools: ['mine', 'borrowed'] }), owns: (n) => n === 'mine' },
      { policy: new ToolPolicy({ visibleTools: ['borrowed'] }) },
    ]);
    expect(policy.isVisible(tool('mine'))).toBe(true);
    expect(policy.isVisible(tool('borrowed'))).toBe(true);
    const hidden = new LayeredPolicy([
      { policy: new ToolPolicy({ visibleTools: ['borrowed'] }), owns: (n) => n === 'mine' },
      { policy: new ToolPolicy({}) },
    ]);
    expect(hidden.isVisible(tool('mine'))).toBe(false);
  });

  it('a deny in any layer wins, and the outer layers are not asked after it', async () => {
    const outerApprove = vi.fn(() => true);
    const innerDeny = new LayeredPolicy([
      { policy: new ToolPolicy({ deny: ['write'] }) },
      { policy: new ToolPolicy({ approve: outerApprove }) },
    ]);
    expect(await innerDeny.authorize(req('write'), { signal })).toMatchObject({
      decision: 'deny',
      stage: 'deny',
    });
    expect(outerApprove).not.toHaveBeenCalled();

    const outerDeny = new LayeredPolicy([
      { policy: new ToolPolicy({ allow: ['write'] }) },
      { policy: new ToolPolicy({ deny: ['write'], allow: ['write'] }) },
    ]);
    expect(await outerDeny.authorize(req('write'), { signal })).toMatchObject({
      decision: 'deny',
      code: 'TOOL_DENIED',
    });
  });

  it('an approval from the inner approver never skips the outer approver', async () => {
    const inner = vi.fn(() => true);
    const outer = vi.fn(() => false);
    const requested: string[] = [];
    const policy = new LayeredPolicy([
      { policy: new ToolPolicy({ approve: inner }) },
      { policy: new ToolPolicy({ approve: outer }) },
    ]);
    const d = await policy.authorize(req('write'), {
      signal,
      onApprovalRequested: (r) => requested.push(r.capability),
    });
    expect(d).toMatchObject({ decision: 'deny', stage: 'approval' });
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).toHaveBeenCalledTimes(1);
    expect(requested).toEqual(['write', 'write']);

    outer.mockReturnValue(true);
    expect(await policy.authorize(req('write'), { signal })).toMatchObject({
      decision: 'allow',
      stage: 'approval',
    });
  });

  it('a redirect in an inner layer is the decision', async () => {
    const policy = new LayeredPolicy([
      {
        policy: new ToolPolicy({
          rules: [{ id: 'r', authorize: () => ({ decision: 'redirect', message: 'do X' }) }],
        }),
      },
      { policy: new ToolPolicy({ default: 'allow' }) },
    ]);
    expect(await policy.authorize(req('write'), { signal })).toMatchObject({
      decision: 'redirect',
      message: 'do X',
    });
  });

  it("each layer's observer sees its own decisions; notify reaches every observer", async () => {
    const innerSeen: AuthorizationEvent[] = [];
    const outerSeen: AuthorizationEvent[] = [];
    const policy = new LayeredPolicy([
      { policy: new ToolPolicy({ default: 'allow', observer: (e) => innerSeen.push(e) }) },
      {
        policy: new ToolPolicy({ deny: ['write'], observer: (e) => outerSeen.push(e) }),
      },
    ]);
    await policy.authorize(req('write'), { signal });
    expect(innerSeen.map((e) => [e.decision, e.stage])).toEqual([['allow', 'default']]);
    expect(outerSeen.map((e) => [e.decision, e.stage])).toEqual([['deny', 'deny']]);

    policy.notify(req('read'), { decision: 'deny', stage: 'hook', reason: 'hook said no' });
    expect(innerSeen.at(-1)).toMatchObject({ toolName: 'read', stage: 'hook' });
    expect(outerSeen.at(-1)).toMatchObject({ toolName: 'read', stage: 'hook' });
  });

  it('is a dry run when any layer is', () => {
    expect(
      new LayeredPolicy([
        { policy: new ToolPolicy() },
        { policy: new ToolPolicy({ dryRun: true }) },
      ]).dryRun,
    ).toBe(true);
    expect(new LayeredPolicy([{ policy: new ToolPolicy() }]).dryRun).toBe(false);
  });

  it('an abort rejects with ABORTED', async () => {
    const controller = new AbortController();
    const policy = new LayeredPolicy([
      { policy: new ToolPolicy({ default: 'allow' }) },
      {
        policy: new ToolPolicy({
          approve: () => {
            controller.abort();
            return true;
          },
        }),
      },
    ]);
    await expect(
      policy.authorize(req('write'), { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
