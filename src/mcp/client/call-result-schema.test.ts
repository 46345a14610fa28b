import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { resultSchemaFor, resultSchemaOnce, toolResultSchema } from './call-result-schema.js';

const client = () => new Client({ name: 'unit', version: '0' });

describe('toolResultSchema', () => {
  it('is built once per codec: two clients of one era share it', () => {
    const a = toolResultSchema(client());
    expect(a).toBeDefined();
    expect(toolResultSchema(client())).toBe(a);
  });

  it('gives what the codec gives: the value, content [] for a result without it, the issue', async () => {
    const schema = toolResultSchema(client())!;
    const ok = await schema['~standard'].validate({ content: [{ type: 'text', text: 'hi' }] });
    expect(ok).toEqual({ value: { content: [{ type: 'text', text: 'hi' }] } });
    expect(await schema['~standard'].validate({ isError: false })).toEqual({
      value: { isError: false, content: [] },
    });
    const bad = await schema['~standard'].validate({ content: 'not a list' });
    expect(bad.issues).toHaveLength(1);
    expect(bad.issues?.[0]?.message).toContain('expected array');
    // a task where a result was due is refused, not defaulted into an empty success
    const task = await schema['~standard'].validate({ task: { taskId: 't1' } });
    expect(task.issues?.[0]?.message).toContain("'task'");
  });

  it('is undefined for a client without the codec accessor (the client builds its own then)', () => {
    expect(toolResultSchema({} as never)).toBeUndefined();
    expect(toolResultSchema({ _wireCodec: () => undefined } as never)).toBeUndefined();
  });
});

/** A fake of the client class (only `request` and the codec accessor): records what it is sent. */
class FakeClient {
  readonly sent: unknown[][] = [];
  _wireCodec() {
    return (
      new Client({ name: 'unit', version: '0' }) as unknown as { _wireCodec(): unknown }
    )._wireCodec();
  }
  request(...args: unknown[]): unknown {
    this.sent.push(args);
    return args;
  }
}

describe('resultSchemaOnce', () => {
  const Sub = resultSchemaOnce(FakeClient as never) as unknown as new () => FakeClient;

  it('gives tools/call sent without a schema the built one, options moved after it', () => {
    const client = new Sub();
    const options = { timeout: 5 };
    client.request({ method: 'tools/call', params: { name: 'x' } }, options);
    const [request, schema, moved] = client.sent[0]!;
    expect(request).toEqual({ method: 'tools/call', params: { name: 'x' } });
    expect(schema).toBe(toolResultSchema(client as never));
    expect(moved).toBe(options);
  });

  it('gives every spec method sent without a schema its own, built once per codec and method', () => {
    const client = new Sub();
    client.request({ method: 'tools/list' }, { timeout: 1 });
    client.request({ method: 'ping' });
    client.request({ method: 'tools/list' }, { timeout: 2 });
    const [list, ping, again] = client.sent;
    expect(list![1]).toBe(resultSchemaFor(client as never, 'tools/list'));
    expect(list![1]).not.toBe(toolResultSchema(client as never));
    expect(list![2]).toEqual({ timeout: 1 });
    expect(ping![1]).toBe(resultSchemaFor(client as never, 'ping'));
    expect(ping![2]).toBeUndefined();
    expect(again![1]).toBe(list![1]);
  });

  it('leaves the tasks methods, methods outside the spec and a request with its own schema as sent', () => {
    const client = new Sub();
    const own = {
      '~standard': { version: 1, vendor: 'x', validate: (v: unknown) => ({ value: v }) },
    };
    // a function schema (as some libraries make them) is a schema too
    const fn = Object.assign(() => undefined, { '~standard': own['~standard'] });
    client.request({ method: 'tasks/get' }, { timeout: 1 });
    client.request({ method: 'io.example/custom' }, { timeout: 4 });
    client.request({ method: 'tools/call' }, own, { timeout: 2 });
    client.request({ method: 'tools/call' }, fn, { timeout: 3 });
    expect(client.sent).toEqual([
      [{ method: 'tasks/get' }, { timeout: 1 }],
      [{ method: 'io.example/custom' }, { timeout: 4 }],
      [{ method: 'tools/call' }, own, { timeout: 2 }],
      [{ method: 'tools/call' }, fn, { timeout: 3 }],
    ]);
    expect(resultSchemaFor(client as never, 'io.example/custom')).toBeUndefined();
  });

  it('validates a tools/list result as the client would: the value, or the issue', async () => {
    const schema = resultSchemaFor(client(), 'tools/list')!;
    const tools = [{ name: 'echo', inputSchema: { type: 'object' } }];
    expect(await schema['~standard'].validate({ tools })).toEqual({ value: { tools } });
    const bad = await schema['~standard'].validate({ tools: 'none' });
    expect(bad.issues?.[0]?.message).toContain('expected array');
  });

  it('is one subclass per base class', () => {
    expect(resultSchemaOnce(FakeClient as never)).toBe(Sub);
  });
});
