import { execFileSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';

// Drives a command in a real terminal: a detached tmux session on its own server socket,
// keys sent with send-keys, the screen read with capture-pane.

/** Whether the `tmux` program can be run here. */
export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A command running in a tmux pane. */
export interface TmuxPane {
  /** Sends tmux key names or literal text (`{ literal: true }`). */
  send(keys: readonly string[], options?: { literal?: boolean }): void;
  /** The pane's text now (with its scrollback). */
  screen(): string;
  /** Waits until the screen matches `pattern`; fails with the screen after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Kills the tmux server. */
  close(): void;
}

/**
 * Starts `shellCommand` in a 200x50 tmux pane. The command should end with
 * `; echo EXIT=$?; sleep 30` so that its exit code can be read from the screen.
 */
export function startTmux(name: string, shellCommand: string): TmuxPane {
  const socket = `muster-test-${name}-${process.pid}`;
  const tmux = (args: string[]): string =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  tmux(['new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', shellCommand]);
  tmux(['set-option', '-t', 'main', 'history-limit', '5000']);
  const screen = (): string => tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'main']);
  return {
    send(keys, options = {}) {
      tmux(['send-keys', '-t', 'main', ...(options.literal ? ['-l'] : []), ...keys]);
    },
    screen,
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let text = '';
      while (Date.now() < deadline) {
        text = screen();
        if (pattern.test(text)) return text;
        await delay(100);
      }
      throw new Error(`The terminal never showed ${String(pattern)}. Screen:\n${text}`);
    },
    close() {
      try {
        tmux(['kill-server']);
      } catch {
        // already gone
      }
    },
  };
}
