// Type-level checks (run by the type checker): sdkTool infers its handler's arguments.
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { sdkTool, tool } from '../../src/index.js';
import type { SdkToolContext, ToolExecutionContext } from '../../src/index.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

describe('sdkTool types', () => {
  it('infers arguments from a Zod raw shape, optional fields optional', () => {
    sdkTool(
      'greet',
      'Greets.',
      { name: z.string(), times: z.number().optional() },
      ({ name, times }) => {
        expectTypeOf(name).toEqualTypeOf<string>();
        expectTypeOf(times).toEqualTypeOf<number | undefined>();
        return text(name);
      },
    );
  });

  it('infers arguments from an object Standard Schema', () => {
    sdkTool('find', 'Finds.', z.object({ id: z.number(), tags: z.array(z.string()) }), (args) => {
      expectTypeOf(args).toEqualTypeOf<{ id: number; tags: string[] }>();
      return text(String(args.id));
    });
  });

  it('refuses a handler that misreads an argument', () => {
    // @ts-expect-error name is a string, not a number
    sdkTool('bad', 'Bad.', { name: z.string() }, ({ name }: { name: number }) =>
      text(String(name)),
    );
  });

  it('reports progress in the same form as tool()', () => {
    const update: Parameters<ToolExecutionContext['reportProgress']>[0] = {
      progress: 1,
      total: 2,
      message: 'half',
    };
    expectTypeOf<SdkToolContext['reportProgress']>().toBeCallableWith(update);
    tool({
      name: 'noop',
      description: 'Does nothing.',
      input: z.object({}),
      execute: (_args, ctx) => {
        ctx.reportProgress({ progress: 1, total: 2, message: 'half' });
        return 'ok';
      },
    });
    sdkTool('noop', 'Does nothing.', {}, async (_args, ctx) => {
      await ctx.reportProgress({ progress: 1, total: 2, message: 'half' });
      return text('ok');
    });
  });
});
