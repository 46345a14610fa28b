import type { Command } from 'commander';
import { ToolError } from '../errors/index.js';
import { ToolPolicy } from '../policy/index.js';
import type { PolicyOptions } from '../policy/index.js';
import {
  checkDirectToolCall,
  directCallDecision,
  formatIssues,
  mcpModelNameOf,
  normalizeToolReturn,
} from '../tools/index.js';
import type { CliContext } from './cli-context.js';
import { EXIT_CODES } from './exit-codes.js';
import { collect, parseToolArgs } from './mcp-args.js';
import { withMcp } from './mcp-session.js';
import { withSpinner } from './spinner.js';
import { mcpGroup } from './mcp-group.js';
import { setExitCode } from './exit-status.js';

interface CallOptions {
  args?: string;
  arg: string[];
  allow: string[];
  deny: string[];
  default: string;
}

const EXAMPLES = `
Examples:
  $ muster mcp call everything echo --args '{"message":"hi"}'
  $ muster mcp call everything get-sum --arg a=2 --arg b=3 --json
  $ muster mcp call fs write_file --arg path=/tmp/x --arg content=hi --deny 'mcp__fs__write*'

The call goes through the policy of a run: --deny patterns win, then --allow patterns, then
--default (allow, since you asked for this call; deny; or ask, which without a prompt denies
with TOOL_APPROVAL_REQUIRED). Arguments are checked against the tool's input schema first.
Exit codes: 0 done, 2 bad input, 3 the server failed, 4 it needs a login, 5 the policy
refused the call, 6 the tool failed (an isError result is printed, then exit 6).`;

/** `muster mcp call`: one tool call through the policy, after a real connect. */
export function mcpCallCommand(program: Command, ctx: CliContext): void {
  const command = mcpGroup(program)
    .command('call')
    .description('call one tool of an MCP server through the policy and print its result')
    .argument('<name>', 'the server')
    .argument('<tool>', "the tool's name on the server (see 'muster mcp tools <name>')")
    .option('--args <json>', 'the arguments as one JSON object')
    .option(
      '--arg <key=value>',
      'one argument; the value is JSON when it parses, else text (repeatable)',
      collect,
      [],
    )
    .option('--allow <pattern>', 'a tool pattern the policy allows (repeatable)', collect, [])
    .option(
      '--deny <pattern>',
      'a tool pattern the policy denies; wins over --allow (repeatable)',
      collect,
      [],
    )
    .option(
      '--default <decision>',
      'allow, deny or ask (ask denies: there is no prompt here)',
      'allow',
    )
    .addHelpText('after', EXAMPLES);
  command.action(async (server: string, toolName: string, o: CallOptions) => {
    const args = parseToolArgs(o.args, o.arg);
    const options: PolicyOptions = {
      allow: o.allow,
      deny: o.deny,
      default: o.default as PolicyOptions['default'] & string,
    };
    const policy = new ToolPolicy(options);
    const connectPolicy: PolicyOptions = { ...options, allow: ['mcp_connect:*', ...o.allow] };
    const out = ctx.output();
    const view = await withSpinner(ctx.io, out.options, `Calling ${server} ${toolName}`, () =>
      withMcp(
        ctx,
        async (manager) => {
          const tool = (await manager.listTools(server)).find((t) => t.name === toolName);
          const modelName = mcpModelNameOf(
            manager.list().find((s) => s.name === server)?.tools,
            server,
            toolName,
          );
          if (!tool)
            throw new ToolError(
              'TOOL_NOT_FOUND',
              `MCP server '${server}' has no tool '${toolName}': see 'muster mcp tools ${server}'.`,
              { toolName: modelName },
            );
          // the order of a run: arguments checked first, then the policy decides
          const check = await checkDirectToolCall(
            policy,
            { server, tool, modelName, arguments: args, sessionId: 'cli', runId: 'mcp-call' },
            { signal: new AbortController().signal },
          );
          if (check.outcome === 'arguments')
            throw new ToolError(
              'TOOL_ARGUMENTS_INVALID',
              `Invalid arguments for '${toolName}': ${formatIssues(check.issues)}. Fix --args/--arg and call again.`,
              { toolName: modelName },
            );
          const decision = check.decision;
          if (check.outcome === 'refused')
            throw new ToolError(
              decision.code ?? 'TOOL_DENIED',
              `The policy refused ${modelName} (${decision.stage}: ${decision.reason ?? decision.decision}): change --allow, --deny or --default.`,
              { toolName: modelName },
            );
          const result = normalizeToolReturn(
            await manager.callTool(server, toolName, args),
            modelName,
          );
          return {
            server,
            tool: toolName,
            modelName,
            policy: directCallDecision(decision),
            result: {
              content: result.content,
              ...(result.isError ? { isError: true } : {}),
              ...(result.structured !== undefined ? { structured: result.structured } : {}),
              ...(result.blobs && result.blobs.length > 0
                ? {
                    blobs: result.blobs.map((b) => ({
                      kind: b.kind,
                      mimeType: b.mimeType,
                      bytes: Math.floor((b.data.length * 3) / 4),
                    })),
                  }
                : {}),
            },
          };
        },
        connectPolicy,
      ),
    );
    if (out.options.json) out.json(view);
    else out.line(view.result.content);
    if (view.result.isError) setExitCode(command, EXIT_CODES.tool);
  });
}
