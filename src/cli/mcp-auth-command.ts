import type { Command } from 'commander';
import { McpError, MusterError } from '../errors/index.js';
import { McpClientManager } from '../mcp/index.js';
import { oauthNamespace, osUser, signedInOrigins } from '../auth/index.js';
import type { OAuthAuthorizeFunction } from '../auth/index.js';
import { findAuthTarget } from './auth-target.js';
import { startCallbackListener } from './callback-listener.js';
import type { CliContext } from './cli-context.js';
import { mcpGroup } from './mcp-group.js';
import { browserCommand, openBrowser } from './open-browser.js';
import { withSpinner } from './spinner.js';
import { chooseStore } from './token-store-choice.js';

interface AuthOptions {
  readonly store: string;
  readonly allowedOrigin: string[];
  readonly timeout: string;
  readonly port: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function wholeNumber(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${flag} must be a whole number from ${min} to ${max}, not '${value}'.`,
    );
  }
  return n;
}

function originsOf(values: readonly string[]): string[] {
  return values.map((value) => {
    if (!URL.canParse(value)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `--allowed-origin '${value}' is not a URL: give an origin such as https://auth.example.com.`,
      );
    }
    return new URL(value).origin;
  });
}

/** The library names its option; on the command line the fix is `--allowed-origin`. */
function withCliHint(err: unknown): unknown {
  if (!McpError.isInstance(err) || err.details['reason'] !== 'origin-not-allowed') return err;
  return new McpError(
    err.code,
    `${err.message} With muster mcp auth, pass --allowed-origin <origin> for it.`,
    {
      ...(err.server === undefined ? {} : { server: err.server }),
      details: err.details,
      cause: err,
    },
  );
}

/** `muster mcp auth <name>`: signs in to a remote server with a loopback callback (docs/cli.md). */
async function auth(ctx: CliContext, name: string, opts: AuthOptions): Promise<void> {
  const out = ctx.output();
  const timeoutS = wholeNumber('--timeout', opts.timeout, 1, 600);
  const port = wholeNumber('--port', opts.port, 0, 65535);
  const allowedOrigins = originsOf(opts.allowedOrigin);
  const chosen = chooseStore(opts.store, ctx.home());
  const target = await findAuthTarget(name, ctx.workdir(), ctx.home());
  // a refresh of an earlier sign-in goes where that sign-in went (the user allowed it then)
  const stored = await chosen.store.get(oauthNamespace(name, new URL(target.url).href, osUser()));
  allowedOrigins.push(...signedInOrigins(stored).filter((o) => !allowedOrigins.includes(o)));
  const listener = await startCallbackListener(port);
  let prompted = false;
  const authorize: OAuthAuthorizeFunction = (authUrl, { signal }) => {
    prompted = true;
    listener.setAuthorizationUrl(authUrl);
    // the start URL redirects to the authorization URL: no state or challenge in the terminal
    out.notice(`To sign in to '${name}', open this URL in a browser:`);
    ctx.io.stderr.write(`  ${listener.startUrl}\n`);
    void openBrowser(browserCommand(ctx.io.env), listener.startUrl, ctx.io.env).then((outcome) => {
      if (!outcome.opened && !signal.aborted)
        out.notice(`Could not open a browser (${outcome.reason}): open the URL above yourself.`);
    });
    out.notice(`Waiting up to ${timeoutS} s for the sign-in...`);
    return withSpinner(ctx.io, out.options, 'Waiting for the sign-in in the browser', () =>
      listener.nextCallback(signal),
    );
  };
  const manager = new McpClientManager(
    {},
    {
      workdir: ctx.workdir(),
      oauth: {
        [name]: {
          serverUrl: target.url,
          allowedOrigins,
          redirectUri: listener.redirectUri,
          authorize,
          store: chosen.store,
          timeoutMs: timeoutS * 1000,
        },
      },
    },
  );
  try {
    const result = await manager.authenticate(name).catch((err: unknown) => {
      throw withCliHint(err);
    });
    if (result.requiresUserAction) {
      throw new McpError('MCP_AUTH_REQUIRED', `Server '${name}' still needs a sign-in.`, {
        server: name,
      });
    }
    const status = manager.list().find((s) => s.name === name)?.status ?? 'connected';
    if (out.options.json) {
      out.json({ server: name, status, signedIn: true, login: prompted, store: chosen.where });
    } else {
      out.line(
        prompted
          ? `Signed in to '${name}' (${target.url}); tokens saved in ${chosen.where}.`
          : `Already signed in to '${name}' (${target.url}); tokens in ${chosen.where}.`,
      );
    }
  } finally {
    await manager.close();
    await listener.close();
  }
}

/** `muster mcp logout <name>`: forgets the local tokens of a remote server (docs/cli.md). */
async function logout(ctx: CliContext, name: string, opts: { store: string }): Promise<void> {
  const out = ctx.output();
  const chosen = chooseStore(opts.store, ctx.home());
  const target = await findAuthTarget(name, ctx.workdir(), ctx.home());
  const manager = new McpClientManager(
    {},
    {
      workdir: ctx.workdir(),
      oauth: {
        [name]: {
          serverUrl: target.url,
          allowedOrigins: [],
          // never used: logout only deletes the store entry
          redirectUri: 'http://127.0.0.1/callback',
          store: chosen.store,
        },
      },
    },
  );
  try {
    await manager.logout(name);
  } finally {
    await manager.close();
  }
  const removed = chosen.removed() ?? [];
  if (out.options.json) {
    out.json({ server: name, removed, store: chosen.where });
  } else if (removed.length === 0) {
    out.line(`No tokens of '${name}' were stored in ${chosen.where}; nothing removed.`);
  } else {
    out.line(
      `Signed out of '${name}': removed its ${removed.join(', ')} from ${chosen.where} (nothing is revoked at the server).`,
    );
  }
}

/** Adds `muster mcp auth <name>` and `muster mcp logout <name>`. */
export function mcpAuthCommands(program: Command, ctx: CliContext): void {
  const mcp = mcpGroup(program);
  mcp
    .command('auth <name>')
    .description('sign in to a remote (http) MCP server with OAuth in the browser')
    .option('--store <store>', 'where tokens are kept: file or keychain', 'file')
    .option(
      '--allowed-origin <origin>',
      "another origin OAuth may contact (the authorization server's); repeatable",
      collect,
      [],
    )
    .option('--timeout <seconds>', 'how long to wait for the sign-in', '180')
    .option('--port <port>', 'the loopback port of the callback listener (0: any free port)', '0')
    .addHelpText(
      'after',
      `
The URL to open is always printed (for SSH sessions); the browser is MUSTER_BROWSER, else
open (macOS) or xdg-open. Tokens go to MUSTER_HOME/credentials.json (mode 0600) unless
--store keychain. Exits 0 when signed in, 4 when the sign-in failed or timed out.

Examples:
  muster mcp auth docs --allowed-origin https://auth.example.com
  muster mcp auth docs --store keychain --timeout 60`,
    )
    .action((name: string, opts: AuthOptions) => auth(ctx, name, opts));
  mcp
    .command('logout <name>')
    .description("delete a remote MCP server's local tokens (nothing is revoked at the server)")
    .option('--store <store>', 'where the tokens are kept: file or keychain', 'file')
    .addHelpText(
      'after',
      `
Examples:
  muster mcp logout docs
  muster --json mcp logout docs --store keychain`,
    )
    .action((name: string, opts: { store: string }) => logout(ctx, name, opts));
}
