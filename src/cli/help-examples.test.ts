import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from './exit-codes.js';
import { addHelpExamples } from './help-examples.js';

describe('muster --help', () => {
  it('lists every exit code the command can end with', () => {
    const program = new Command('muster');
    let out = '';
    program.configureOutput({ writeOut: (text) => (out += text) });
    addHelpExamples(program);
    program.outputHelp();
    const listed = /Exit codes: ([^(]*)\(/s.exec(out)?.[1] ?? '';
    const codes = [...listed.matchAll(/(\d+) /g)].map((m) => Number(m[1]));
    expect(codes.sort((a, b) => a - b)).toEqual(Object.values(EXIT_CODES).sort((a, b) => a - b));
    expect(listed).toContain('11 budget spent');
  });
});
