import type { Command } from 'commander';
import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import type { Wait } from '../session/index.js';
import type { CliContext } from './cli-context.js';
import { decisionFromFlags } from './decide-flags.js';
import type { DecideFlags, DecisionFlag } from './decide-flags.js';
import { truncate } from './truncate.js';
import { storeCall } from './store-call.js';
import { openStore } from './store-choice.js';

/**
 * `muster decide <session> <wait> --allow|--deny|--redirect <text>|--answer <json>`: decides
 * a wait of a parked run from this process (docs/cli.md), whichever process parked it. The
 * flags are checked before the store is opened; a wait of another kind than the flag decides
 * is refused before anything is written, and the store refuses unknown, decided and expired
 * waits (`WAIT_NOT_FOUND`) and a changed call (`WAIT_STALE`), both exit 7.
 */
export function decideCommand(program: Command, ctx: CliContext): void {
  program
    .command('decide')
    .description('decide a wait of a parked run (see muster sessions waits), then resume it')
    .argument('<session>', 'the session id')
    .argument('<wait>', 'the wait id')
    .option('--allow', 'approve the call')
    .option('--deny', 'refuse the call (the model is told)')
    .option('--redirect <text>', 'do not run the call: the model gets <text> instead')
    .option(
      '--answer <json>',
      'answer a form: its content object (accept), or {"action":"decline"|"cancel"} / {"action":"accept","content":{…}}',
    )
    .option('--reason <text>', 'who decided and why, kept in the transcript')
    .option(
      '--fingerprint <hex>',
      'refuse (WAIT_STALE) unless the wait still has this fingerprint (the one you were shown)',
    )
    .option('--store <url>', 'a PostgreSQL store (postgres://…) instead of the SQLite file')
    .addHelpText(
      'after',
      `
Examples:
  $ muster sessions waits
  $ muster decide session_3f6c… wait_81a2… --allow --reason "ok by ana"
  $ muster decide session_3f6c… wait_81a2… --redirect "Pay 5, not 50."
  $ muster decide session_3f6c… wait_77b0… --answer '{"name":"Ana"}'
  $ muster sessions resume session_3f6c…`,
    )
    .action(async (sessionId: string, waitId: string, flags: DecideFlags & { store?: string }) => {
      const { flag, decision, fingerprint } = decisionFromFlags(flags);
      const opened = await openStore(ctx, flags.store);
      let agent: Agent | undefined;
      try {
        // an agent without a model: it only decides (checking a form's answer against its schema)
        agent = createAgent({ sessionStore: opened.store });
        const decider = agent;
        const current = await storeCall(opened.where, `read wait '${waitId}'`, async () =>
          opened.store.waits?.get(sessionId, waitId),
        );
        if (current?.status === 'pending') checkKind(current, flag);
        const decided = await storeCall(opened.where, `decide wait '${waitId}'`, () =>
          decider.decide(sessionId, waitId, decision, fingerprint ? { fingerprint } : undefined),
        ).catch((err: unknown) => {
          if (MusterError.isInstance(err) && err.code.startsWith('WAIT_'))
            ctx.output().notice(`The pending waits: muster sessions waits --session ${sessionId}`);
          throw err;
        });
        // through the agent: a link to a delegated run's wait shows that wait's status
        const pending = await storeCall(opened.where, 'list the waits', async () =>
          decider.sessions.waits({ sessionId, status: 'pending' }),
        );
        const left = pending?.waits.length ?? 0;
        const resume = `muster sessions resume ${sessionId}${flags.store === undefined ? '' : ' --store <url>'}`;
        const out = ctx.output();
        if (out.options.json) {
          out.json({ wait: decided, pendingWaits: left, resume });
          return;
        }
        out.line(`${describe(decided)} (wait ${decided.id} of session ${sessionId})`);
        if (left > 0)
          out.line(
            `${left} more wait(s) of this session are pending: muster sessions waits --session ${sessionId}`,
          );
        else out.line(`Continue the run: ${resume}`);
      } finally {
        await agent?.close().catch(() => undefined);
        await opened.close();
      }
    });
}

/** Approvals take `--allow`, `--deny` and `--redirect`; forms take `--answer`. */
function checkKind(wait: Wait, flag: DecisionFlag): void {
  const fits = wait.kind === 'elicitation' ? flag === '--answer' : flag !== '--answer';
  if (wait.kind === 'approval' || wait.kind === 'elicitation') {
    if (fits) return;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      wait.kind === 'approval'
        ? `Wait '${wait.id}' is an approval: decide it with --allow, --deny or --redirect <text>, not ${flag}.`
        : `Wait '${wait.id}' is a form (elicitation): answer it with --answer <json>, not ${flag}.`,
      { details: { flag, sessionId: wait.sessionId, waitId: wait.id } },
    );
  }
  throw new MusterError(
    'INVALID_CONFIGURATION',
    wait.kind === 'auth'
      ? `Wait '${wait.id}' waits for a sign-in to '${wait.server ?? ''}': sign in with muster mcp auth ${wait.server ?? '<server>'}, then muster sessions resume ${wait.sessionId}.`
      : `Wait '${wait.id}' waits for an MCP task, which nobody decides: muster sessions resume ${wait.sessionId} polls it again.`,
    { details: { flag, sessionId: wait.sessionId, waitId: wait.id } },
  );
}

/** What was decided, in one line: `allowed pay {"n":5}`, `answered (accept) form of …`. */
function describe(wait: Wait): string {
  const d = wait.decision;
  const call = `${wait.toolName ?? wait.server ?? ''} ${truncate(JSON.stringify(wait.arguments ?? {}), 200)}`;
  if (d === undefined) return `decided ${call}`;
  if ('decision' in d) {
    const verb = {
      allow: 'allowed',
      deny: 'denied',
      redirect: 'redirected',
      cancel: 'cancelled the task of',
    }[d.decision];
    const message = d.decision === 'redirect' ? ` -> ${JSON.stringify(d.message ?? '')}` : '';
    return `${verb} ${call}${message}`;
  }
  return `answered the form of ${wait.server ?? wait.toolName ?? 'the server'} (${d.action})`;
}
