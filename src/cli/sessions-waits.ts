import { Option } from 'commander';
import type { Command } from 'commander';
import { createAgent } from '../agent/index.js';
import type { Wait, WaitKind, WaitQuery } from '../session/index.js';
import type { CliContext } from './cli-context.js';
import { storeCall } from './store-call.js';
import { openStore } from './store-choice.js';
import type { OpenedStore } from './store-choice.js';
import { waitTable } from './wait-table.js';

/** The options of `muster sessions waits`. */
interface WaitsOptions {
  readonly session?: string;
  readonly kind?: WaitKind;
  readonly store?: string;
}

/**
 * Adds `muster sessions waits [--session <id>] [--kind approval|elicitation]` to `sessions`:
 * the pending waits of parked runs in the CLI's store, whichever process parked them, as a
 * table or (`--json`) `{ "waits": [Wait…] }` (docs/cli.md).
 */
export function sessionsWaitsCommand(sessions: Command, ctx: CliContext): void {
  sessions
    .command('waits')
    .description('list the pending waits of parked runs: what to decide with muster decide')
    .option('--session <id>', 'only the waits of this session')
    .addOption(
      new Option('--kind <kind>', 'only waits of this kind').choices([
        'approval',
        'elicitation',
        'task',
        'auth',
      ]),
    )
    .option('--store <url>', 'a PostgreSQL store (postgres://…) instead of the SQLite file')
    .addHelpText(
      'after',
      '\nExamples:\n  $ muster sessions waits\n  $ muster sessions waits --session 3f6c… --kind approval --json',
    )
    .action(async (options: WaitsOptions) => {
      const opened = await openStore(ctx, options.store);
      try {
        const query: WaitQuery = {
          status: 'pending',
          ...(options.session === undefined ? {} : { sessionId: options.session }),
          ...(options.kind === undefined ? {} : { kind: options.kind }),
        };
        const waits = await storeCall(opened.where, 'list the waits', () => listAll(opened, query));
        const out = ctx.output();
        if (out.options.json) out.json({ waits });
        else if (waits.length === 0) out.line('No pending waits: no run is parked on a decision.');
        else {
          for (const line of waitTable(waits)) out.line(line);
          out.line();
          out.line(
            'Decide one: muster decide <session> <wait> --allow | --deny | --redirect <text> | --answer <json>',
          );
        }
      } finally {
        await opened.close();
      }
    });
}

/**
 * Every page, through an agent without a model (as `muster decide`): a link to a delegated
 * run's wait shows that wait's status, and no server's protocol state is shown.
 */
async function listAll(opened: OpenedStore, query: WaitQuery): Promise<Wait[]> {
  if (opened.store.waits === undefined) return [];
  const agent = createAgent({ sessionStore: opened.store });
  try {
    const all: Wait[] = [];
    let cursor: string | undefined;
    do {
      const page = await agent.sessions.waits(cursor === undefined ? query : { ...query, cursor });
      all.push(...page.waits);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return all;
  } finally {
    await agent.close();
  }
}
