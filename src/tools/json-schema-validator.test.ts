import { describe, expect, it } from 'vitest';
import { formatIssues, validateJsonSchema } from './index.js';
import type { ValidationIssue, ValidationOutcome } from './index.js';

function issuesOf(outcome: ValidationOutcome): readonly ValidationIssue[] {
  expect(outcome.success).toBe(false);
  return outcome.success ? [] : outcome.issues;
}

describe('validateJsonSchema', () => {
  it('loads a 2020-12 schema with $schema and validates with it', async () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        pair: {
          type: 'array',
          prefixItems: [{ type: 'string' }, { type: 'number' }],
          items: false,
        },
        $defs_user: { $ref: '#/$defs/user' },
      },
      $defs: { user: { type: 'object', required: ['id'] } },
    };
    const value = { pair: ['a', 1], $defs_user: { id: 1 } };
    await expect(validateJsonSchema(schema, value)).resolves.toEqual({ success: true, value });
    const issues = issuesOf(await validateJsonSchema(schema, { pair: ['a', 'b', 3] }));
    expect(issues.map((i) => i.path.map(String))).toEqual(
      expect.arrayContaining([['pair', '1'], ['pair']]),
    );
    expect(issuesOf(await validateJsonSchema(schema, { $defs_user: {} }))).toEqual([
      expect.objectContaining({ path: ['$defs_user'], message: expect.stringContaining('id') }),
    ]);
  });

  it('loads a draft-07 schema with $schema, definitions and dependencies', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { count: { type: 'integer', minimum: 0 } },
      properties: { n: { $ref: '#/definitions/count' }, unit: { type: 'string' } },
      dependencies: { n: ['unit'] },
    };
    await expect(validateJsonSchema(schema, { n: 2, unit: 'kg' })).resolves.toMatchObject({
      success: true,
    });
    const issues = issuesOf(await validateJsonSchema(schema, { n: -1 }));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: ['n'] }),
        expect.objectContaining({ path: [], message: expect.stringContaining('unit') }),
      ]),
    );
  });

  it('loads a draft-07 schema with tuple items (items as an array)', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        point: {
          type: 'array',
          items: [{ type: 'number' }, { type: 'number' }],
          additionalItems: false,
        },
      },
    };
    await expect(validateJsonSchema(schema, { point: [1, 2] })).resolves.toMatchObject({
      success: true,
    });
    const issues = issuesOf(await validateJsonSchema(schema, { point: [1, 'two', 3] }));
    expect(issues.map((i) => i.path.map(String))).toEqual(expect.arrayContaining([['point', '1']]));
  });

  it('loads two distinct schema objects that share an $id', async () => {
    // MCP servers often send `$id`; re-listing tools (a new run, a reconnect) yields new
    // schema objects with the same `$id`.
    const listed = () => ({
      $id: 'https://example.com/schemas/search-input',
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
    await expect(validateJsonSchema(listed(), { q: 'a' })).resolves.toMatchObject({
      success: true,
    });
    await expect(validateJsonSchema(listed(), {})).resolves.toMatchObject({ success: false });
  });

  it('loads a schema without $schema', async () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    await expect(validateJsonSchema(schema, { a: 1 })).resolves.toEqual({
      success: true,
      value: { a: 1 },
    });
  });

  it('gives the same answers when a schema object is reused', async () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    for (let i = 0; i < 3; i++) {
      await expect(validateJsonSchema(schema, { a: i })).resolves.toMatchObject({ success: true });
      await expect(validateJsonSchema(schema, { a: 'x' })).resolves.toMatchObject({
        success: false,
      });
    }
  });

  it('reports every issue with the path to it', async () => {
    const schema = {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['name'],
        },
        'a/b': { type: 'number' },
        'c~d': { type: 'number' },
      },
      required: ['user'],
      additionalProperties: false,
    };
    const issues = issuesOf(
      await validateJsonSchema(schema, {
        user: { tags: ['ok', 7] },
        'a/b': 'x',
        'c~d': 'y',
        extra: 1,
      }),
    );
    const byPath = new Map(issues.map((i) => [i.path.map(String).join('|'), i.message]));
    expect(byPath.get('user|tags|1')).toContain('string');
    expect(byPath.get('user')).toContain('name');
    expect(byPath.get('a/b')).toContain('number');
    expect(byPath.get('c~d')).toContain('number');
    expect(byPath.get('')).toContain('extra');
  });

  it('checks formats', async () => {
    const schema = { type: 'object', properties: { mail: { type: 'string', format: 'email' } } };
    await expect(validateJsonSchema(schema, { mail: 'a@example.com' })).resolves.toMatchObject({
      success: true,
    });
    expect(issuesOf(await validateJsonSchema(schema, { mail: 'nope' }))).toEqual([
      expect.objectContaining({ path: ['mail'], message: expect.stringContaining('email') }),
    ]);
  });

  it('throws when the schema itself cannot be compiled', async () => {
    await expect(
      validateJsonSchema({ type: 'object', properties: { a: { $ref: '#/missing' } } }, {}),
    ).rejects.toThrow();
  });
});

describe('formatIssues', () => {
  it('renders paths joined by dots and the root as (root)', () => {
    expect(
      formatIssues([
        { path: ['a', 'b'], message: 'must be number' },
        { path: [], message: "must have required property 'c'" },
        { path: ['list', 0], message: 'must be string' },
      ]),
    ).toBe("a.b: must be number; (root): must have required property 'c'; list.0: must be string");
  });

  it('says the value is invalid when there are no issues', () => {
    expect(formatIssues([])).toBe('the value is invalid');
  });

  it('keeps at most ten issues', () => {
    const issues = Array.from({ length: 15 }, (_, i) => ({ path: [`f${i}`], message: 'bad' }));
    const text = formatIssues(issues);
    expect(text.split('; ')).toHaveLength(10);
    expect(text).toContain('f9: bad');
    expect(text).not.toContain('f10');
  });

  it('renders issues from validateJsonSchema', async () => {
    const outcome = await validateJsonSchema(
      { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      { n: 'x' },
    );
    expect(formatIssues(issuesOf(outcome))).toBe('n: must be number');
  });
});

describe('item-09: patterns under RE2 (a server schema) and the native engine (the host)', () => {
  const text = (pattern: string) => ({
    type: 'object',
    properties: { text: { type: 'string', pattern } },
  });

  it('item-09: matches pattern and patternProperties under RE2 as JavaScript does', async () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^\\u00e9\\d{3}-(?<tail>\\w+)$' } },
      patternProperties: { '^x-[a-z]+$': { type: 'number' } },
    };
    for (const engine of ['native', 're2'] as const) {
      await expect(
        validateJsonSchema(schema, { id: 'é123-ab', 'x-a': 1 }, engine),
      ).resolves.toMatchObject({ success: true });
      const issues = issuesOf(await validateJsonSchema(schema, { id: 'e123', 'x-a': 'n' }, engine));
      expect(issues.map((i) => i.path.join('.')).sort()).toEqual(['id', 'x-a']);
    }
  });

  it('item-09: a lookahead, a backreference or a repeat count over 1000 throws under RE2, naming it', async () => {
    for (const pattern of ['^(?=a)a$', '(a)\\1', '^[a-z]{1,2048}$']) {
      await expect(validateJsonSchema(text(pattern), { text: 'a' }, 're2')).rejects.toThrow(
        `the pattern ${JSON.stringify(pattern)} cannot run under RE2`,
      );
    }
    await expect(
      validateJsonSchema(
        { type: 'object', patternProperties: { '^(?!x)': { type: 'string' } } },
        { a: 'b' },
        're2',
      ),
    ).rejects.toThrow('"^(?!x)" cannot run under RE2');
    // the host's own schema keeps the native engine, lookaround and all
    await expect(validateJsonSchema(text('^(?=a)a$'), { text: 'a' })).resolves.toMatchObject({
      success: true,
    });
  });

  it('item-09: one schema object validates under both engines, each with its own compile', async () => {
    const schema = text('^(?=a)a$');
    await expect(validateJsonSchema(schema, { text: 'a' }, 'native')).resolves.toMatchObject({
      success: true,
    });
    await expect(validateJsonSchema(schema, { text: 'a' }, 're2')).rejects.toThrow(/RE2/);
  });
});
