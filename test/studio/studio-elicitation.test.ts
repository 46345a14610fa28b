import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/model/index.js';
import { startStudio } from '../../src/studio/index.js';
import type { PendingElicitation, RunningStudio } from '../../src/studio/index.js';
import { fixturePath } from '../support/mcp-fixtures.js';
import { openEvents, signIn } from '../support/studio-client.js';
import { eventData } from '../support/studio-events.js';
import type { SseReader, StudioClient } from '../support/studio-client.js';

// A server's form question answered over the studio's API: the studio checks the answer
// against the server's requestedSchema (a real stdio MCP server asks, form-server.mjs).

let studio: RunningStudio;
let client: StudioClient;
let events: SseReader;

beforeAll(async () => {
  studio = await startStudio({
    model: scriptedModel([
      { toolCalls: [{ name: 'mcp__form__signup', arguments: {} }] },
      { text: 'signed up' },
    ]),
    mcpServers: { form: { command: process.execPath, args: [fixturePath('form-server.mjs')] } },
    mcp: { strictConfig: true },
    allow: ['mcp_connect:form', 'mcp__form__signup'],
  });
  client = await signIn(studio.url);
  events = await openEvents(client);
});
afterAll(async () => {
  events?.close();
  await studio?.close();
});

describe('an elicitation in the studio', () => {
  it('refuses content that does not match the form, with issues, then accepts a valid answer', async () => {
    const { sessionId } = (await client.post('/api/runs', { prompt: 'sign me up' })).json as {
      sessionId: string;
    };
    const pending = await events.waitFor(
      (e) => e.event === 'elicitation.pending',
      'elicitation.pending',
    );
    const elicitation = (eventData(pending) as { elicitation: PendingElicitation }).elicitation;
    expect(elicitation).toMatchObject({
      server: 'form',
      mode: 'form',
      message: 'Sign-up details, please.',
    });
    expect(elicitation.requestedSchema).toMatchObject({ required: ['name', 'age', 'plan'] });
    expect((await client.get('/api/elicitations')).json).toEqual([elicitation]);

    const invalid = await client.post(`/api/elicitations/${elicitation.id}`, {
      action: 'accept',
      content: { name: 'Ada', age: 'old', plan: 'gold' },
    });
    expect(invalid.status).toBe(400);
    const error = (invalid.json as { error: { code: string; issues: { path: string }[] } }).error;
    expect(error.code).toBe('ELICITATION_CONTENT_INVALID');
    expect(error.issues.map((i) => i.path).sort()).toEqual(['age', 'plan']);
    // still waiting after a refused answer
    expect((await client.get('/api/elicitations')).json).toEqual([elicitation]);

    const valid = await client.post(`/api/elicitations/${elicitation.id}`, {
      action: 'accept',
      content: { name: 'Ada', age: 36, plan: 'pro', newsletter: false },
    });
    expect(valid.status).toBe(200);
    const resolved = await events.waitFor(
      (e) => e.event === 'elicitation.resolved',
      'elicitation.resolved',
    );
    expect(eventData(resolved)).toEqual({
      kind: 'elicitation.resolved',
      id: elicitation.id,
      action: 'accept',
    });

    const ended = await events.waitFor((e) => e.event === 'run.ended', 'run.ended');
    expect(eventData(ended)).toEqual({ kind: 'run.ended', sessionId, status: 'completed' });
    const session = (await client.get(`/api/sessions/${sessionId}`)).json as {
      messages: { role: string; content: unknown }[];
    };
    const result = session.messages.find((m) => m.role === 'tool');
    expect(String(result?.content)).toContain(
      'signup accept: {"name":"Ada","age":36,"plan":"pro","newsletter":false}',
    );
    expect((await client.get('/api/elicitations')).json).toEqual([]);
  });
});
