import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { toolResultSchema } from './call-result-schema.js';

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

  it('is undefined for a client without the codec accessor (callTool() is used then)', () => {
    expect(toolResultSchema({} as never)).toBeUndefined();
    expect(toolResultSchema({ _wireCodec: () => undefined } as never)).toBeUndefined();
  });
});
