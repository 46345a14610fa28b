/** The repository's root. */
export const ROOT: string;
/** The line that marks a file under `examples/` as a helper. */
export const HELPER_MARK: string;
/** The folders whose `*.ts` files are the examples `npm run examples` runs. */
export const EXAMPLE_FOLDERS: string[];
/** Whether `file` is marked as a helper. */
export function isHelper(file: string): boolean;
/** The examples to run for `targets` (files and folders); without targets, every example. */
export function listExamples(targets?: string[], cwd?: string): string[];
