import type { Command } from 'commander';
import { SessionError } from '../errors/index.js';
import type { SessionSummary } from '../session/index.js';
import type { CliContext } from './cli-context.js';
import { setExitCode } from './exit-status.js';
import { addRunOptions } from './run-options.js';
import type { RunOptions } from './run-session.js';
import { runSession } from './run-session.js';
import { printTranscript, sessionTable } from './session-transcript.js';
import { sessionsWaitsCommand } from './sessions-waits.js';
import { storeCall } from './store-call.js';
import { openStore } from './store-choice.js';

/** `muster sessions list|show|waits|resume` over the CLI's session store (docs/cli.md). */
export function sessionsGroup(program: Command, ctx: CliContext): void {
  const sessions = program
    .command('sessions')
    .description('list, show and resume the sessions of past runs');
  sessions
    .command('list')
    .description('list sessions: id, status, age and message count (newest change first)')
    .option('--store <url>', 'a PostgreSQL store (postgres://…) instead of the SQLite file')
    .addHelpText('after', '\nExamples:\n  $ muster sessions list\n  $ muster sessions list --json')
    .action(async (options: { store?: string }) => {
      const opened = await openStore(ctx, options.store);
      try {
        const all = await storeCall(opened.where, 'list the sessions', () => listAll(opened.store));
        const out = ctx.output();
        if (out.options.json) out.json({ sessions: all });
        else if (all.length === 0)
          out.line('No sessions yet: start one with muster run "<prompt>".');
        else for (const line of sessionTable(all)) out.line(line);
      } finally {
        await opened.close();
      }
    });
  sessions
    .command('show')
    .description('show a session transcript: messages, tool calls with arguments, results, errors')
    .argument('<id>', 'the session id')
    .option('--store <url>', 'a PostgreSQL store (postgres://…) instead of the SQLite file')
    .addHelpText(
      'after',
      '\nExamples:\n  $ muster sessions show 3f6c…\n  $ muster sessions show 3f6c… --json   # the raw stored state',
    )
    .action(async (id: string, options: { store?: string }) => {
      const opened = await openStore(ctx, options.store);
      try {
        const state = await storeCall(opened.where, `read session '${id}'`, () =>
          opened.store.get(id),
        );
        if (state === undefined) {
          throw new SessionError(
            'SESSION_NOT_FOUND',
            `No session '${id}' in ${opened.where}: see muster sessions list.`,
            { sessionId: id },
          );
        }
        const out = ctx.output();
        if (out.options.json) out.json(state);
        else printTranscript(out, state);
      } finally {
        await opened.close();
      }
    });
  sessionsWaitsCommand(sessions, ctx);
  const resume = sessions
    .command('resume')
    .description(
      'continue a session whose run died (crashed, killed or interrupted) or parked (once its waits are decided)',
    )
    .argument('<id>', 'the session id');
  addRunOptions(resume)
    .addHelpText('after', '\nExamples:\n  $ muster sessions resume 3f6c… --model openai:gpt-5-mini')
    .action(async (id: string, options: RunOptions, command: Command) => {
      const code = await runSession(ctx, options, (agent, signal) => agent.resume(id, { signal }));
      setExitCode(command, code);
    });
}

async function listAll(
  store: Awaited<ReturnType<typeof openStore>>['store'],
): Promise<SessionSummary[]> {
  if (store.list === undefined) return [];
  const all: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list(cursor === undefined ? {} : { cursor });
    all.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}
