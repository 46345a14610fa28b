import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strictForm } from './strict-form.js';
import { restoreAnswer } from './strict-restore.js';

const json = (schema: z.ZodType) =>
  schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as Record<string, unknown>;

describe('strictForm', () => {
  const mixed = json(
    z.object({
      id: z.union([z.string(), z.number()]),
      note: z.string().min(2).optional(),
      scores: z.record(z.string(), z.number()),
      kind: z.discriminatedUnion('k', [
        z.object({ k: z.literal('a'), a: z.number() }),
        z.object({ k: z.literal('b'), tags: z.array(z.string()).optional() }),
      ]),
    }),
  );

  it('makes every property required, optional ones nullable, records entry arrays, oneOf anyOf', () => {
    const form = strictForm(mixed);
    expect(form).toMatchObject({ strict: true, wrapped: false });
    expect(form.schema).toEqual({
      type: 'object',
      properties: {
        id: { type: ['string', 'number'] },
        note: { type: ['string', 'null'], description: '{minLength: 2}' },
        scores: {
          type: 'array',
          items: {
            type: 'object',
            properties: { key: { type: 'string' }, value: { type: 'number' } },
            required: ['key', 'value'],
            additionalProperties: false,
          },
        },
        kind: {
          anyOf: [
            {
              type: 'object',
              properties: { k: { type: 'string', const: 'a' }, a: { type: 'number' } },
              required: ['k', 'a'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: {
                k: { type: 'string', const: 'b' },
                tags: { type: ['array', 'null'], items: { type: 'string' } },
              },
              required: ['k', 'tags'],
              additionalProperties: false,
            },
          ],
        },
      },
      required: ['id', 'note', 'scores', 'kind'],
      additionalProperties: false,
    });
  });

  it('reads an answer back: entries become a record, introduced nulls go, kept nulls stay', () => {
    const form = strictForm(mixed);
    const answer = {
      id: 7,
      note: null,
      scores: [
        { key: 'x', value: 1 },
        { key: 'y', value: 2 },
      ],
      kind: { k: 'b', tags: null },
    };
    expect(restoreAnswer(answer, mixed, form)).toEqual({
      id: 7,
      scores: { x: 1, y: 2 },
      kind: { k: 'b' },
    });
    const nullable = json(z.object({ maybe: z.string().nullable().optional() }));
    expect(restoreAnswer({ maybe: null }, nullable, strictForm(nullable))).toEqual({ maybe: null });
  });

  it('wraps a root that is not an object as { value } and unwraps it', () => {
    const list = json(z.array(z.object({ n: z.number().optional() })));
    const form = strictForm(list);
    expect(form.wrapped).toBe(true);
    expect(form.schema).toMatchObject({ type: 'object', required: ['value'] });
    expect(restoreAnswer({ value: [{ n: null }, { n: 2 }] }, list, form)).toEqual([{}, { n: 2 }]);
  });

  it('keeps $defs at the root of a recursive schema and follows $ref when reading back', () => {
    type Node = { name: string; note?: string; kids: Node[] };
    const node: z.ZodType<Node> = z.lazy(() =>
      z.object({ name: z.string(), note: z.string().optional(), kids: z.array(node) }),
    );
    const schema = json(z.object({ root: node }));
    const form = strictForm(schema);
    expect(form.strict).toBe(true);
    expect(Object.keys(form.schema.$defs as object)).toHaveLength(1);
    const answer = { root: { name: 'a', note: null, kids: [{ name: 'b', note: 'x', kids: [] }] } };
    expect(restoreAnswer(answer, schema, form)).toEqual({
      root: { name: 'a', kids: [{ name: 'b', note: 'x', kids: [] }] },
    });
  });

  it('sends a schema it cannot make strict as it is, and reads answers as they are', () => {
    const tuple = json(z.object({ pair: z.tuple([z.string(), z.number()]) }));
    const form = strictForm(tuple);
    expect(form.strict).toBe(false);
    const { $schema: _d, ...rest } = tuple;
    expect(form.schema).toEqual(rest);
    expect(restoreAnswer({ pair: ['a', 1] }, tuple, form)).toEqual({ pair: ['a', 1] });
    expect(strictForm({ type: 'object', properties: { a: {} } }).strict).toBe(false);
    expect(
      strictForm({
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: {},
      }).strict,
    ).toBe(false);
    expect(strictForm({ allOf: [{ type: 'object' }] })).toMatchObject({
      strict: false,
      wrapped: true,
    });
  });

  it('leaves an answer deeper than it restores as it is (no unbounded recursion)', () => {
    type Deep = { next?: Deep };
    const deep: z.ZodType<Deep> = z.lazy(() => z.object({ next: deep.optional() }));
    const schema = json(z.object({ d: deep }));
    const form = strictForm(schema);
    let answer: Deep = {};
    for (let i = 0; i < 5000; i++) answer = { next: answer };
    expect(() => restoreAnswer({ d: answer }, schema, form)).not.toThrow();
  });
});
