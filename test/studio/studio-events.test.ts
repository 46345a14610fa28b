import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { StudioEventHub } from '../../src/studio/studio-events.js';

// The event hub's limits, on its own route: streams read through Hono's in-process requests.

const none = { pending: () => [] };

function hubApp(options: ConstructorParameters<typeof StudioEventHub>[0]) {
  const hub = new StudioEventHub(options);
  const app = new Hono();
  hub.routes(none, none)(app);
  return { hub, app };
}

/** Reads a stream to its end (or until `until` says stop); returns its text. */
async function readAll(response: Response, until?: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
    if (until?.(text)) {
      await reader.cancel();
      return text;
    }
  }
}

const events = (text: string) => text.match(/^event: .+$/gm) ?? [];

describe('the event hub', () => {
  it('keeps at most maxSubscribers streams open: a new one closes the oldest', async () => {
    const { hub, app } = hubApp({ maxSubscribers: 2 });
    const first = await app.request('/api/events');
    const second = await app.request('/api/events');
    const third = await app.request('/api/events');
    // the oldest stream ends by itself, after its hello
    expect(events(await readAll(first))).toEqual(['event: hello']);
    hub.publish({ kind: 'resource.updated', server: 's', uri: 'u' });
    for (const open of [second, third]) {
      const text = await readAll(open, (t) => t.includes('resource.updated'));
      expect(events(text)).toEqual(['event: hello', 'event: resource.updated']);
    }
    await hub.close();
  });

  it('closes a stream that falls maxBacklogBytes behind (the page reconnects)', async () => {
    const { hub, app } = hubApp({ maxBacklogBytes: 4000 });
    const slow = await app.request('/api/events');
    // nothing reads the stream while 20 messages of 1000 characters are published
    for (let i = 0; i < 20; i++)
      hub.publish({ kind: 'resource.updated', server: 's', uri: `${i}:${'x'.repeat(1000)}` });
    const text = await readAll(slow);
    const got = events(text).filter((e) => e === 'event: resource.updated').length;
    expect(got).toBeLessThan(20);
    await hub.close();
  });

  it('sends what was published before close() (a withdrawn approval, say), then ends', async () => {
    const { hub, app } = hubApp({});
    const open = await app.request('/api/events');
    hub.publish({ kind: 'approval.resolved', id: 'a1', decision: 'cancelled' });
    const closed = hub.close();
    expect(events(await readAll(open))).toEqual(['event: hello', 'event: approval.resolved']);
    await closed;
  });
});
