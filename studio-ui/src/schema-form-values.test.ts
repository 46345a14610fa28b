import { describe, expect, it } from 'vitest';
import { checkValues } from './schema-form-check.js';
import { fieldsOf, initialValues, type JsonSchema } from './schema-form-values.js';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    ratio: { type: 'number', exclusiveMaximum: 1 },
    loud: { type: 'boolean' },
    color: { type: 'string', enum: ['red', 'green'] },
    level: {
      oneOf: [
        { const: 1, title: 'Low' },
        { const: 2, title: 'High' },
      ],
    },
    tags: { type: 'array', items: { type: 'string' } },
    sizes: { type: 'array', items: { enum: ['s', 'm', 'l'] } },
    where: {
      type: 'object',
      properties: { city: { type: 'string' }, zip: { type: 'string' } },
      required: ['city'],
    },
    email: { type: 'string', format: 'email' },
  },
  required: ['name', 'count'],
};

const fields = fieldsOf(schema);
const base = { ...initialValues(fields), name: 'abc', count: '3' };

describe('fieldsOf', () => {
  it('gives one field per property, nested objects flattened to parent.child', () => {
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['count', 'integer', true],
      ['ratio', 'number', false],
      ['loud', 'boolean', false],
      ['color', 'enum', false],
      ['level', 'enum', false],
      ['tags', 'json', false],
      ['sizes', 'multi-enum', false],
      ['where.city', 'string', true],
      ['where.zip', 'string', false],
      ['email', 'string', false],
    ]);
    expect(fields.find((f) => f.name === 'level')?.options.map((o) => o.label)).toEqual([
      'Low',
      'High',
    ]);
  });

  it('starts from the schema defaults', () => {
    const values = initialValues(
      fieldsOf({
        type: 'object',
        properties: {
          a: { type: 'string', default: 'x' },
          b: { type: 'boolean', default: true },
          c: { type: 'object', default: { k: 1 } },
        },
      }),
    );
    expect(values).toEqual({ a: 'x', b: true, c: '{\n  "k": 1\n}' });
  });
});

describe('checkValues', () => {
  it('converts the raw values and leaves empty optional fields out', () => {
    const result = checkValues(schema, fields, {
      ...base,
      ratio: '0.5',
      loud: true,
      color: 'green',
      level: '2',
      tags: '["a","b"]',
      sizes: ['s', 'l'],
      'where.city': 'Oslo',
    });
    expect(result).toEqual({
      ok: true,
      value: {
        name: 'abc',
        count: 3,
        ratio: 0.5,
        loud: true,
        color: 'green',
        level: 2,
        tags: ['a', 'b'],
        sizes: ['s', 'l'],
        where: { city: 'Oslo' },
      },
    });
  });

  it('reports required fields, types, bounds, lengths, patterns and formats per field', () => {
    const result = checkValues(schema, fields, {
      ...base,
      name: 'A',
      count: '2.5',
      ratio: '1',
      tags: '{"not":"an array"}',
      email: 'nope',
      'where.zip': '0150',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual([
      'count',
      'email',
      'name',
      'ratio',
      'tags',
      'where.city',
    ]);
    expect(result.errors.count).toBe('Must be a whole number.');
    expect(result.errors['where.city']).toBe('Required.');
  });

  it('checks each rule on its own', () => {
    const check = (patch: Record<string, string>) => {
      const result = checkValues(schema, fields, { ...base, ...patch });
      return result.ok ? undefined : result.errors;
    };
    expect(check({ name: '' })).toEqual({ name: 'Required.' });
    expect(check({ name: 'abcdef' })).toEqual({ name: 'At most 5 characters.' });
    expect(check({ name: 'ab1' })).toEqual({ name: 'Must match the pattern ^[a-z]+$.' });
    expect(check({ count: '11' })).toEqual({ count: 'Must be 10 or less.' });
    expect(check({ count: '0' })).toEqual({ count: 'Must be 1 or more.' });
    expect(check({ count: 'x' })).toEqual({ count: 'Must be a number.' });
    expect(check({ color: 'blue' })).toEqual({ color: 'Choose one of the options.' });
    expect(check({ tags: '[1,' })).toEqual({ tags: 'Must be valid JSON.' });
    expect(check({ email: 'a@b.example' })).toBeUndefined();
  });

  it('sends an unchecked boolean only when it is required or has a default', () => {
    const s: JsonSchema = {
      type: 'object',
      properties: {
        a: { type: 'boolean' },
        b: { type: 'boolean' },
        c: { type: 'boolean', default: true },
      },
      required: ['b'],
    };
    const f = fieldsOf(s);
    expect(checkValues(s, f, { a: false, b: false, c: false })).toEqual({
      ok: true,
      value: { b: false, c: false },
    });
  });

  it('accepts a schema without properties as an empty object', () => {
    expect(checkValues({ type: 'object' }, fieldsOf({ type: 'object' }), {})).toEqual({
      ok: true,
      value: {},
    });
  });
});
