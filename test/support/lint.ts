/**
 * Lints planted code as if it were a file of the repository, with the project's ESLint setup,
 * and planted trees with its dependency rules.
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const DEPCRUISE_CONFIG = join(ROOT, '.dependency-cruiser.mjs');
const eslint = new ESLint({ cwd: ROOT });

/**
 * The `no-restricted-syntax` findings ESLint gives `code` as the repository file `path`, each as
 * `<line>: <its message up to the first colon>`.
 */
export async function restrictedSyntax(code: string, path: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-syntax')
    .map((m) => `${m.line}: ${m.message.split(':')[0]}`);
}

/**
 * The findings of `rule` ESLint gives `code` as the repository file `path`, each as
 * `<line>: <message>`.
 */
export async function lintFindings(code: string, path: string, rule: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === rule)
    .map((m) => `${m.line}: ${m.message}`);
}

/** What depcruise found in a tree. */
export interface Cruise {
  /** Errors found: the exit code of the lint run (it exits with one per error). */
  readonly errors: number;
  /** The violations, each as `<rule>: <from> -> <to>`. */
  readonly violations: string[];
  /** Every import the cruised files make, each as `<from> -> <to>`. */
  readonly imports: string[];
}

/** Runs depcruise over `src` of the tree at `cwd` with the project's rules, as `npm run lint` does. */
export async function dependencyCruise(cwd: string): Promise<Cruise> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [DEPCRUISE, 'src', '--config', DEPCRUISE_CONFIG, '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as {
    modules: { source: string; dependencies: { resolved: string }[] }[];
    summary: { error: number; violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return {
    errors: result.summary.error,
    violations: result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`),
    imports: result.modules.flatMap((m) =>
      m.dependencies.map((d) => `${m.source} -> ${d.resolved}`),
    ),
  };
}
