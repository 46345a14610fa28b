import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/model/index.js';
import { startStudio } from '../../src/studio/index.js';
import type { RunningStudio, StudioEvent } from '../../src/studio/index.js';
import { startModernOnlyHttpServer, stdioConfig } from '../support/mcp-fixtures.js';
import type { HttpFixture } from '../support/mcp-fixtures.js';
import { openEvents, signIn } from '../support/studio-client.js';
import type { SseReader, StudioClient } from '../support/studio-client.js';

// Canary secrets in a stdio server's env, an HTTP server's headers and bearer token, and in
// the studio token: none may appear in any /api answer or on the event stream (the token only
// in the URL printed once).

const canary = (what: string) => `CANARY${what}${randomBytes(12).toString('hex')}`;
const ENV = canary('ENV');
const HEADER = canary('HEADER');
const BEARER = canary('BEARER');
const TOKEN = canary('TOKEN');
const SECRETS = [ENV, HEADER, BEARER, TOKEN];

let http: HttpFixture;
let studio: RunningStudio;
let client: StudioClient;
let events: SseReader;

beforeAll(async () => {
  http = await startModernOnlyHttpServer();
  studio = await startStudio({
    token: TOKEN,
    model: scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__basic__echo', arguments: { text: 'one' } },
          { name: 'mcp__remote__echo', arguments: { text: 'two' } },
          { name: 'mcp__bearer__whoami', arguments: {} },
        ],
      },
      { text: 'all done' },
    ]),
    mcpServers: {
      basic: { ...stdioConfig('basic-server.mjs'), env: { MUSTER_CANARY: ENV } },
      remote: { type: 'http', url: http.url, headers: { 'X-Canary': HEADER } },
      bearer: { type: 'http', url: http.url, auth: { type: 'bearer', token: BEARER } },
    },
    mcp: { strictConfig: true },
    allow: ['mcp_connect:*', 'mcp__*'],
  });
  client = await signIn(studio.url);
  events = await openEvents(client);
});
afterAll(async () => {
  events?.close();
  await studio?.close();
  await http?.close();
});

describe('the studio never shows a secret', () => {
  it('in API answers or events of a run over servers configured with canaries', async () => {
    expect(studio.url).toContain(TOKEN);
    const { sessionId } = (await client.post('/api/runs', { prompt: 'call them all' })).json as {
      sessionId: string;
    };
    const ended = await events.waitFor((e) => e.event === 'run.ended', 'run.ended');
    expect((ended.data as StudioEvent & { status: string }).status).toBe('completed');
    // the run reached every server (so their configurations were used, secrets included)
    const completed = events.events.flatMap((e) => {
      const d = e.data as StudioEvent;
      return d.kind === 'agent' && d.event.type === 'tool.completed' ? [d.event] : [];
    });
    expect(completed.map((e) => [e.toolName, e.isError]).sort()).toEqual([
      ['mcp__basic__echo', false],
      ['mcp__bearer__whoami', false],
      ['mcp__remote__echo', false],
    ]);
    expect(events.events.some((e) => e.event === 'servers')).toBe(true);

    for (const path of [
      '/api/info',
      '/api/sessions',
      `/api/sessions/${sessionId}`,
      '/api/approvals',
      '/api/elicitations',
      // the server routes (their own module): whatever they answer must be secret-free too
      '/api/servers',
      '/api/servers/basic/tools',
      '/api/servers/remote/tools',
    ]) {
      await client.get(path);
    }
    const everything = [...client.seen, events.raw()].join('\n');
    expect(everything.length).toBeGreaterThan(1000);
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });
});
