/** Lints planted code as if it were a file of the repository, with the project's ESLint setup. */
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = resolve(import.meta.dirname, '../..');
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
