export { runCli, setExitCode } from './program.js';
export type { CommandGroup } from './program.js';
export { CliContext } from './cli-context.js';
export { processIo } from './cli-io.js';
export type { CliIo } from './cli-io.js';
export { EXIT_CODES, exitCodeOf } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export { Output, colorEnabled } from './output.js';
export type { GlobalOptions } from './output.js';
