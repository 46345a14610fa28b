import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runMuster } from '../support/cli.js';
import { cliProject } from '../support/cli-project.js';
import type { CliProject } from '../support/cli-project.js';
import { hasTmux, startTmux } from '../support/tmux.js';
import type { TmuxPane } from '../support/tmux.js';

// `muster run` on a terminal: the built bin in a real tmux pane, real stdio MCP fixture
// servers, keys typed with send-keys and the screen read with capture-pane.

// without tmux these tests are skipped with a notice; under CI=true a missing tmux is a failure
const ci = process.env['CI'] === 'true';
const skip = !hasTmux() && !ci;
if (skip)
  console.warn(
    'Skipping the muster run terminal tests: tmux not found (Debian: apt-get install tmux; macOS: brew install tmux). Under CI=true this is a failure.',
  );

let cli: ReturnType<typeof buildCli> | undefined;
beforeAll(() => {
  if (!skip) cli = buildCli();
}, 120_000);
const bin = (): string => cli!.bin;

let project: CliProject | undefined;
let pane: TmuxPane | undefined;
afterEach(() => {
  pane?.close();
  project?.cleanup();
  pane = undefined;
  project = undefined;
});

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `muster <args>` in a pane from the project folder; the screen ends with EXIT=<code>. */
function inTerminal(name: string, p: CliProject, args: readonly string[]): TmuxPane {
  const command = [
    `cd ${quote(p.dir)} &&`,
    `env MUSTER_HOME=${quote(p.home)} NO_COLOR=1`,
    quote(process.execPath),
    quote(bin()),
    ...args.map(quote),
    '; echo EXIT=$?; sleep 30',
  ].join(' ');
  return startTmux(name, command);
}

describe.skipIf(skip)('muster run on a terminal', () => {
  it('asks for each approval: allow once runs the call, deny refuses the next', async () => {
    project = cliProject({ basic: 'basic-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'first' } }] },
      { toolCalls: [{ name: 'mcp__basic__add', arguments: { a: 2, b: 3 } }] },
      { text: 'All finished.' },
    ]);
    pane = inTerminal('approve', project, ['run', 'use the tools', '--model', model]);
    await pane.waitFor(/Allow mcp__basic__echo \{"text":"first"\}\?/);
    expect(pane.screen()).toContain('Allow always for this session');
    pane.send(['Enter']); // the first choice: allow once
    await pane.waitFor(/< mcp__basic__echo: default: first/);
    await pane.waitFor(/Allow mcp__basic__add \{"a":2,"b":3\}\?/);
    pane.send(['Down', 'Down', 'Enter']); // deny
    const screen = await pane.waitFor(/EXIT=\d+/);
    expect(screen).toMatch(/x mcp__basic__add \[TOOL_DENIED\]/);
    expect(screen).toContain('All finished.');
    // a denial the person chose at the prompt is the run's answer, not a failure
    expect(screen).toMatch(/EXIT=0\b/);
  }, 90_000);

  it('allow always stops asking for that tool; redirect hands the model a message instead', async () => {
    project = cliProject({ basic: 'basic-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'one' } }] },
      { toolCalls: [{ name: 'mcp__basic__echo', arguments: { text: 'two' } }] },
      { toolCalls: [{ name: 'mcp__basic__add', arguments: { a: 1, b: 1 } }] },
      { text: 'Understood.' },
    ]);
    pane = inTerminal('always', project, ['--json', 'run', 'go', '--model', model]);
    await pane.waitFor(/Allow mcp__basic__echo \{"text":"one"\}\?/);
    pane.send(['Down', 'Enter']); // allow always for this session
    await pane.waitFor(/Allow mcp__basic__add \{"a":1,"b":1\}\?/);
    expect(pane.screen()).not.toContain('{"text":"two"}?');
    pane.send(['Down', 'Down', 'Down', 'Enter']); // redirect
    await pane.waitFor(/Message for the model instead:/);
    pane.send(['use subtraction instead'], { literal: true });
    pane.send(['Enter']);
    const screen = await pane.waitFor(/EXIT=\d+/);
    expect(screen).toMatch(/EXIT=0\b/);
    const doc = JSON.parse(screen.slice(screen.indexOf('{\n'), screen.lastIndexOf('}') + 1)) as {
      sessionId: string;
      text: string;
      events: { type: string; toolName?: string; content?: string; decision?: string }[];
    };
    expect(doc.text).toBe('Understood.');
    const echoes = doc.events.filter(
      (e) => e.type === 'tool.completed' && e.toolName === 'mcp__basic__echo',
    );
    expect(echoes.map((e) => e.content)).toEqual(['default: one', 'default: two']);
    expect(doc.events.filter((e) => e.type === 'tool.approval.requested')).toHaveLength(2);
    const add = doc.events.find(
      (e) => e.type === 'tool.completed' && e.toolName === 'mcp__basic__add',
    );
    expect(add?.content).toMatch(/redirected/);
    // the message goes into the transcript as the next instruction
    const shown = await runMuster(bin(), ['--json', 'sessions', 'show', doc.sessionId], {
      cwd: project.dir,
      env: project.env,
    });
    const state = JSON.parse(shown.stdout) as { messages: { role: string }[] };
    const messages = JSON.stringify(state.messages);
    expect(messages).toContain('use subtraction instead');
  }, 90_000);

  it("shows what a project server's connection will run, env names only, before asking", async () => {
    project = cliProject({}, 'project');
    const marker = join(project.dir, 'touched');
    const secret = `CANARY-TTY-ENV-${process.pid}-7b1e`;
    writeFileSync(
      join(project.dir, '.muster', 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          shx: { command: 'sh', args: ['-c', `touch ${marker}`], env: { MUSTER_KEY: secret } },
        },
      }),
    );
    const model = project.turns('turns.json', [{ text: 'No tools needed.' }]);
    pane = inTerminal('connect', project, ['run', 'hello', '--model', model]);
    const asked = await pane.waitFor(/Allow connecting to MCP server 'shx'\?/);
    expect(asked).toContain(`MCP server "shx" (stdio, from the project file) asks to connect:`);
    expect(asked).toContain('command: "sh"');
    expect(asked).toContain(`args: ["-c","touch ${marker}"]`);
    expect(asked).toContain('env (names only): "MUSTER_KEY"');
    expect(asked).not.toContain(secret);
    pane.send(['Down', 'Down', 'Enter']); // deny
    const screen = await pane.waitFor(/EXIT=\d+/);
    expect(screen).not.toContain(secret);
    expect(existsSync(marker)).toBe(false);
  }, 90_000);

  it('answers an elicitation form field by field from its schema', async () => {
    project = cliProject({ form: 'form-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__form__signup', arguments: {} }] },
      { text: 'Signed up.' },
    ]);
    pane = inTerminal('form', project, [
      'run',
      'sign me up',
      '--model',
      model,
      '--allow',
      'mcp__form__signup',
    ]);
    await pane.waitFor(/Sign-up details, please\./);
    await pane.waitFor(/Answer this form\?/);
    pane.send(['Enter']);
    await pane.waitFor(/Your name:/);
    pane.send(['Ada'], { literal: true });
    pane.send(['Enter']);
    await pane.waitFor(/Age:/);
    pane.send(['36'], { literal: true });
    pane.send(['Enter']);
    await pane.waitFor(/Plan:/);
    pane.send(['Down', 'Enter']); // pro
    await pane.waitFor(/Newsletter \[optional\]:/);
    pane.send(['y'], { literal: true });
    pane.send(['Enter']);
    const screen = await pane.waitFor(/EXIT=\d+/);
    expect(screen).toContain(
      'signup accept: {"name":"Ada","age":36,"plan":"pro","newsletter":true}',
    );
    expect(screen).toContain('Signed up.');
    expect(screen).toMatch(/EXIT=0\b/);
  }, 90_000);

  it('Ctrl-C mid-call reports the call unknown, keeps the session and exits 130', async () => {
    project = cliProject({ slow: 'slow-server.mjs' });
    const model = project.turns('turns.json', [
      { toolCalls: [{ name: 'mcp__slow__sleep', arguments: { ms: 120_000 } }] },
      { text: 'never reached' },
    ]);
    pane = inTerminal('interrupt', project, [
      'run',
      'wait a while',
      '--model',
      model,
      '--allow',
      'mcp__slow__sleep',
    ]);
    const started = await pane.waitFor(/session (session_\S+)/);
    const sessionId = /session (session_\S+)/.exec(started)![1]!;
    await pane.waitFor(/> mcp__slow__sleep/);
    pane.send(['C-c']);
    const screen = await pane.waitFor(/EXIT=\d+/);
    expect(screen).toMatch(/mcp__slow__sleep \[TOOL_OUTCOME_UNKNOWN\]/);
    expect(screen).toMatch(/error \[ABORTED\]/);
    expect(screen).toMatch(/EXIT=130\b/);
    expect(screen).not.toContain('never reached');

    const shown = await runMuster(bin(), ['--json', 'sessions', 'show', sessionId], {
      cwd: project.dir,
      env: project.env,
    });
    expect(shown.code).toBe(0);
    const state = JSON.parse(shown.stdout) as {
      status: string;
      error?: { code: string };
      messages: { role: string; content: unknown }[];
    };
    expect(state.status).toBe('failed');
    expect(state.error?.code).toBe('ABORTED');
    expect(JSON.stringify(state.messages)).toContain('mcp__slow__sleep');
  }, 90_000);
});
