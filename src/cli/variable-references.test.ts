import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import { findVariableUses, variableNames } from './variable-references.js';

describe('item-04: the ${...} references of an imported entry', () => {
  it('names each variable once, never a default', () => {
    expect(variableNames('Bearer ${TOKEN}')).toEqual(['TOKEN']);
    expect(variableNames('${A:-secret-default}/${B-other}/${C:?msg}')).toEqual(['A', 'B', 'C']);
    expect(variableNames('${env:NAME} ${input:api-key} ${workspaceFolder}')).toEqual([
      'env:NAME',
      'input:api-key',
      'workspaceFolder',
    ]);
    expect(variableNames('${A:-${B}} ${A}')).toEqual(['A', 'B']);
    expect(variableNames('${/} and ${unclosed')).toEqual(['(unnamed)', 'unclosed']);
    expect(variableNames('$HOME and plain text')).toEqual([]);
  });

  it('finds them in every string of an entry, keys included, with their paths', () => {
    const entry = {
      command: '${HOME}/bin/server',
      args: ['--flag', '${workspaceFolder:app}'],
      env: { PLAIN: 'x', TOKEN: '${GITHUB_TOKEN:-ghp_value}' },
      headers: { 'X-${KEY}': 'v' },
      count: 3,
    };
    const uses = findVariableUses(entry);
    expect(uses).toEqual([
      { field: 'command', variables: ['HOME'] },
      { field: 'args[1]', variables: ['workspaceFolder:app'] },
      { field: 'env.TOKEN', variables: ['GITHUB_TOKEN'] },
      { field: 'headers."X-${KEY}"', variables: ['KEY'] },
    ]);
    expect(JSON.stringify(uses)).not.toContain('ghp_value');
    expect(findVariableUses({ command: 'node', args: ['a.js'] })).toEqual([]);
  });

  it('refuses an entry nested deeper than a declaration can be, without walking it', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => findVariableUses({ args: deep })).toThrow(MusterError);
  });
});
