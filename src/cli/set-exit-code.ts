import type { Command } from 'commander';

/**
 * Makes a command's run end with `code` (when it did not fail with an error). Its own file so
 * that commands can use it without importing the program that imports them.
 */
export function setExitCode(command: Command, code: number): void {
  (command as Command & { exitCodeSet?: number }).exitCodeSet = code;
}
