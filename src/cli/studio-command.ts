import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { cliPolicyVersion } from './cli-policy-version.js';
import { MusterError } from '../errors/index.js';
import type { CliContext } from './cli-context.js';
import { connectUserServers } from './connect-user-servers.js';
import { setExitCode } from './exit-status.js';
import { chooseModel } from './model-choice.js';
import { browserCommand, openBrowser } from './open-browser.js';
import { addAgentOptions, collect } from './run-options.js';
import type { AgentCommandOptions } from './run-options.js';
import { openStore } from './store-choice.js';

/** The options of `muster studio`. */
interface StudioCommandOptions extends AgentCommandOptions {
  readonly port?: number;
  readonly open?: boolean;
  readonly host?: string;
  readonly allowedOrigin?: readonly string[];
  readonly apps?: boolean;
  readonly queue?: string;
  readonly bossSchema?: string;
}

/**
 * `muster studio`: the local web console (docs/studio.md). The studio (hono, the page) is
 * loaded with a dynamic `import()` when the command runs, so `muster --help` stays fast.
 */
export function studioGroup(program: Command, ctx: CliContext): void {
  const studio = program
    .command('studio')
    .description(
      'a local web console: servers, tools, resources, live runs, approvals, forms, sign-in',
    )
    .option('-p, --port <port>', 'the port on 127.0.0.1 (default 0: a free one)', parsePort)
    .option(
      '--open',
      'open the studio in the browser (MUSTER_BROWSER, else open / xdg-open), through a private file that holds the token',
    )
    .option('--host <host>', 'only 127.0.0.1 (or localhost): the studio never listens elsewhere');
  addAgentOptions(studio, {
    model:
      'the model of runs (default: MUSTER_MODEL; none: runs cannot start): openai:<model>, anthropic:<model>, ollama:<model>, scripted:<file.json>',
    default: 'what happens to other calls: ask (the approvals page), allow or deny',
    system: 'the system prompt of runs',
  })
    .option(
      '--allowed-origin <origin>',
      'an origin OAuth sign-in may reach besides the server; repeat for more',
      collect,
    )
    .option('--no-apps', 'do not render MCP Apps views (servers are then not told the studio can)')
    .option(
      '--queue <name>',
      "the workers' pg-boss queue the Fleet page reads, with a postgres:// --store (default 'muster')",
    )
    .option('--boss-schema <name>', "the workers' pg-boss schema (default 'pgboss')")
    .addHelpText(
      'after',
      `
Examples:
  $ muster studio --open
  $ muster studio --port 4555 --model openai:gpt-5-mini --allow 'mcp__fs__read*'`,
    )
    .action(async (options: StudioCommandOptions, command: Command) => {
      setExitCode(command, await runStudio(ctx, options));
    });
}

/** Runs the studio until Ctrl-C (or SIGTERM), then closes it and resolves with 0. */
async function runStudio(ctx: CliContext, options: StudioCommandOptions): Promise<number> {
  const studioModule = await import('../studio/index.js');
  const out = ctx.output();
  const wantsModel = options.model !== undefined || (ctx.io.env['MUSTER_MODEL'] ?? '') !== '';
  const chosen = wantsModel ? await chooseModel(options.model, options.baseUrl, ctx.io) : undefined;
  const opened = await openStore(ctx, options.store);
  let studio: Awaited<ReturnType<typeof studioModule.startStudio>> | undefined;
  let launcher: Launcher | undefined;
  try {
    const workdir = ctx.workdir();
    studio = await studioModule.startStudio({
      ...(chosen === undefined ? {} : { model: chosen.model }),
      ...(chosen?.modelName === undefined ? {} : { modelName: chosen.modelName }),
      ...(chosen === undefined
        ? {}
        : {
            modelLabel: modelLabel(options.model ?? ctx.io.env['MUSTER_MODEL'], chosen.modelName),
          }),
      ...(options.system === undefined ? {} : { system: options.system }),
      sessionStore: opened.store,
      storeKind: opened.where === 'memory' || opened.where === 'postgres' ? opened.where : 'sqlite',
      workdir,
      home: ctx.home(),
      ...(options.allow === undefined ? {} : { allow: options.allow }),
      ...(options.deny === undefined ? {} : { deny: options.deny }),
      default: options.default ?? 'ask',
      // decisions taken here bind to the same version as `muster run --park` with these flags
      policyVersion: cliPolicyVersion({
        ...(options.allow === undefined ? {} : { allow: options.allow }),
        ...(options.deny === undefined ? {} : { deny: options.deny }),
        default: options.default ?? 'ask',
      }),
      rules: [connectUserServers(workdir, ctx.home())],
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.allowedOrigin === undefined ? {} : { allowedOrigins: options.allowedOrigin }),
      apps: options.apps !== false,
      ...(options.queue === undefined && options.bossSchema === undefined
        ? {}
        : {
            fleet: {
              ...(options.queue === undefined ? {} : { queue: options.queue }),
              ...(options.bossSchema === undefined ? {} : { schema: options.bossSchema }),
            },
          }),
    });
    if (out.options.json) out.json({ url: studio.url });
    else out.line(`Muster studio: ${studio.url}`);
    out.notice('Open the URL above (it signs the browser in). Ctrl-C stops the studio.');
    if (chosen === undefined)
      out.notice(
        'notice: no model (--model or MUSTER_MODEL), so runs cannot start; the other pages work.',
      );
    const stopped = waitForStop();
    if (options.open === true) {
      launcher = writeLauncher(studio.url);
      const outcome = await openBrowser(browserCommand(ctx.io.env), launcher.file, ctx.io.env);
      if (!outcome.opened)
        out.notice(`Could not open a browser (${outcome.reason}): open the URL yourself.`);
    }
    await stopped;
    out.notice('Stopping the studio…');
    return 0;
  } finally {
    await studio?.close().catch(() => undefined);
    launcher?.remove();
    await opened.close().catch(() => undefined);
  }
}

/** A file that sends the browser on to the studio's URL, and how to delete it. */
interface Launcher {
  readonly file: string;
  remove(): void;
}

/**
 * Writes the page `--open` opens: an HTML file, readable by the user only (mode 0600, in a
 * new private temporary folder), that redirects to the token URL. The browser is given the
 * file's path, so the token never appears on a command line (which other users of the
 * machine can read). The folder is deleted when the studio stops.
 */
function writeLauncher(url: string): Launcher {
  const dir = mkdtempSync(join(tmpdir(), 'muster-studio-'));
  const file = join(dir, 'open-studio.html');
  const href = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  writeFileSync(
    file,
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
      `<meta http-equiv="refresh" content="0; url=${href}"><title>Muster studio</title></head>` +
      `<body><p><a href="${href}">Open the Muster studio</a></p></body></html>`,
    { mode: 0o600 },
  );
  return {
    file,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Resolves on the first SIGINT or SIGTERM. */
function waitForStop(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The model as `GET /api/info` shows it: `provider:name`, or `scripted` (never a file path). */
function modelLabel(spec: string | undefined, modelName: string | undefined): string {
  const provider = (spec ?? '').split(':')[0]!;
  return modelName === undefined ? provider : `${provider}:${modelName}`;
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--port takes a whole number from 0 to 65535 (0 picks a free one), not '${value}'.`,
    );
  }
  return n;
}
