import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { gzipSync } from 'node:zlib';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpError } from '../../../src/errors/index.js';
import { createGuardedFetch, createTransport } from '../../../src/mcp/transports/index.js';
import { SEND_MARK_HEADER } from '../../../src/mcp/transports/request-watch.js';
import { CALL_TIMEOUT_MS, LIMIT, PROMPT_MS, ctx, newClient, rejection, thrown } from './helpers.js';
import {
  startLoopback,
  startRealServer,
  startScriptedPeer,
  startScriptedSsePeer,
} from './loopback-servers.js';
import type { CallAnswer, Loopback } from './loopback-servers.js';

describe('response bytes are bounded before parsing', () => {
  let answer: CallAnswer = { kind: 'json', bytes: 10, contentLength: true };
  let peer: Loopback;
  beforeAll(async () => {
    peer = await startScriptedPeer(() => answer);
  });
  afterAll(() => peer.close());

  const oversized: Array<[string, CallAnswer]> = [
    ['JSON with content-length', { kind: 'json', bytes: LIMIT * 2, contentLength: true }],
    ['JSON without content-length', { kind: 'json', bytes: LIMIT * 2, contentLength: false }],
    ['JSON that never ends', { kind: 'json-hold', bytes: LIMIT * 2 }],
    ['an SSE event that never ends', { kind: 'sse-hold', bytes: LIMIT * 2 }],
  ];

  it.each(oversized)(
    '%s: callTool rejects promptly with the McpError itself',
    async (_name, oversize) => {
      const client = newClient();
      await client.connect(
        createTransport({ type: 'http', url: `${peer.origin}/mcp` }, ctx('big')).transport,
      );
      answer = oversize;
      const started = Date.now();

      const error = await rejection(() =>
        client.callTool({ name: 'x', arguments: {} }, { timeout: CALL_TIMEOUT_MS }),
      );

      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: 'MCP_OPERATION_FAILED', server: 'big' });
      expect((error as Error).message).toContain(`exceeds mcp.maxResponseBytes (${LIMIT})`);
      // The connection stays usable: the next, normal-sized answer goes through.
      answer = { kind: 'json', bytes: 10, contentLength: true };
      const ok = await client.callTool({ name: 'x', arguments: {} });
      expect(ok.content).toEqual([{ type: 'text', text: 'x'.repeat(10) }]);
      await client.close();
    },
  );

  it('a long event stream is bounded per event, not by its total size', async () => {
    const client = newClient();
    await client.connect(
      createTransport({ type: 'http', url: `${peer.origin}/mcp` }, ctx('many')).transport,
    );
    answer = { kind: 'sse-many', count: 20, bytes: LIMIT / 2 };

    const result = await client.callTool({ name: 'x', arguments: {} });

    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    await client.close();
  });

  it('legacy SSE transport: its sends are its own (no request watch: it passes no per-send header on)', () => {
    const sse = createTransport({ type: 'sse', url: 'http://127.0.0.1:9/sse' }, ctx('sse'));
    expect(Object.hasOwn(sse.transport, 'send')).toBe(false);
    const http = createTransport({ type: 'http', url: 'http://127.0.0.1:9/mcp' }, ctx('http'));
    expect(Object.hasOwn(http.transport, 'send')).toBe(true);
  });

  it('legacy SSE transport: an oversized event closes the connection and fails pending calls', async () => {
    const ssePeer = await startScriptedSsePeer(LIMIT * 2);
    // The event source would reconnect on a timer (3 s by default): fake timers let the test
    // run every timer due well past that instead of waiting for it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const client = newClient();
      const seen: unknown[] = [];
      client.onerror = (error) => seen.push(error);
      await client.connect(
        createTransport({ type: 'sse', url: `${ssePeer.origin}/sse` }, ctx('sse')).transport,
      );
      const started = Date.now();

      const error = await rejection(() =>
        client.callTool({ name: 'x', arguments: {} }, { timeout: CALL_TIMEOUT_MS }),
      );

      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe(SdkErrorCode.ConnectionClosed);
      expect(seen.find((e) => e instanceof McpError)).toMatchObject({
        code: 'MCP_OPERATION_FAILED',
      });
      // Closed for good: no reconnection to the stream, even once every timer due in the
      // next 10 s has run (then a reconnect would be a local request away).
      await vi.advanceTimersByTimeAsync(10_000);
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(ssePeer.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      await ssePeer.close();
    }
  });
});

describe('through a real v2 server', () => {
  let real: Loopback;
  beforeAll(async () => {
    real = await startRealServer();
  });
  afterAll(() => real.close());

  it.each(['legacy', 'auto'] as const)(
    '%s mode: normal answers pass, oversized ones fail, headers and token reach the server',
    async (mode) => {
      real.requests.length = 0;
      const client = newClient(mode);
      const handle = createTransport(
        {
          type: 'http',
          url: `${real.origin}/mcp`,
          headers: { 'X-Tenant': 'acme' },
          auth: { type: 'bearer', token: 'tok-123' },
        },
        ctx('real'),
      );
      await client.connect(handle.transport);

      const ok = await client.callTool({ name: 'sized', arguments: { bytes: 100 } });
      expect(ok.content).toEqual([{ type: 'text', text: 'x'.repeat(100) }]);

      const error = await rejection(() =>
        client.callTool(
          { name: 'sized', arguments: { bytes: LIMIT * 2 } },
          { timeout: CALL_TIMEOUT_MS },
        ),
      );
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: 'MCP_OPERATION_FAILED', server: 'real' });
      expect((error as Error).message).not.toContain('tok-123');

      expect(real.requests.length).toBeGreaterThan(1);
      for (const request of real.requests) {
        // the mark that ties a response body to its send never leaves the process
        expect(request.headers[SEND_MARK_HEADER]).toBeUndefined();
        expect(request.headers['x-tenant']).toBe('acme');
        expect(request.headers.authorization).toBe('Bearer tok-123');
      }
      const posts = real.requests.filter((r) => r.method === 'POST');
      expect(posts.every((r) => r.headers['content-type'] === 'application/json')).toBe(true);
      expect(posts.every((r) => String(r.headers.accept).includes('text/event-stream'))).toBe(true);
      await client.close();
    },
  );
});

describe('createGuardedFetch', () => {
  let a: Loopback;
  let b: Loopback;
  beforeAll(async () => {
    a = await startLoopback((req, res) => {
      if (req.url === '/big')
        res.writeHead(200, { 'content-length': '100000' }).end('x'.repeat(100_000));
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    b = await startLoopback((_req, res) => void res.writeHead(200).end('{}'));
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const guarded = () =>
    createGuardedFetch({
      server: 'g',
      maxResponseBytes: 1000,
      headers: { 'X-Api-Key': 'key-secret' },
      bearerToken: 'tok-secret',
      origin: a.origin,
    });

  it('sends headers and token to the server origin only, never overriding the client', async () => {
    const fetch = guarded();
    await fetch(`${a.origin}/mcp`);
    await fetch(`${a.origin}/mcp`, { headers: { Authorization: 'Bearer from-provider' } });
    await fetch(`${b.origin}/token`);
    expect(a.requests[0]!.headers).toMatchObject({
      'x-api-key': 'key-secret',
      authorization: 'Bearer tok-secret',
    });
    expect(a.requests[1]!.headers.authorization).toBe('Bearer from-provider');
    expect(b.requests[0]!.headers.authorization).toBeUndefined();
    expect(b.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('fails a declared oversized body at once, without secrets in the error', async () => {
    const error = await rejection(() => guarded()(`${a.origin}/big`));
    expect(error).toMatchObject({ code: 'MCP_OPERATION_FAILED', server: 'g' });
    expect((error as Error).message).toContain('100000 bytes');
    expect(JSON.stringify(error) + String(error)).not.toMatch(/key-secret|tok-secret/);
  });

  it('needs an origin to send credentials', () => {
    expect(
      thrown(() => createGuardedFetch({ server: 'g', maxResponseBytes: 1, bearerToken: 't' })),
    ).toMatchObject({ code: 'INVALID_CONFIGURATION' });
  });
});

describe('a declared length the HTTP parser holds the body to', () => {
  const big = 'x'.repeat(100_000);
  let peer: Loopback;
  let liar: Server;
  let liarOrigin = '';
  beforeAll(async () => {
    const zipped = gzipSync(big);
    peer = await startLoopback((req, res) => {
      if (req.url === '/gzip')
        res
          .writeHead(200, {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'content-length': String(zipped.length),
          })
          .end(zipped);
      else res.writeHead(200, { 'content-length': '2' }).end('{}');
    });
    // declares 10 bytes, then sends 5,000 on the same socket
    liar = createServer((socket) => {
      socket.on('data', () =>
        socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n${'y'.repeat(5000)}`),
      );
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    liarOrigin = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await peer.close();
    await new Promise((resolve) => liar.close(resolve));
  });
  const fetch = () => createGuardedFetch({ server: 'd', maxResponseBytes: 1000 });

  it('comes back as fetch gave it, with no counting layer', async () => {
    const response = await fetch()(`${peer.origin}/small`);
    // a bounded body's reading methods sit on the response itself
    expect(['text', 'json', 'body'].filter((name) => Object.hasOwn(response, name))).toEqual([]);
    expect(await response.json()).toEqual({});
  });

  it('a compressed body is still counted as fetch decompresses it', async () => {
    const response = await fetch()(`${peer.origin}/gzip`);
    await expect(response.text()).rejects.toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      details: { reason: 'response-too-large' },
    });
  });

  it('a body that runs past its declared length is cut by the parser, never read whole', async () => {
    const response = await fetch()(`${liarOrigin}/`);
    const read = await response.text().catch((error: unknown) => error);
    if (typeof read === 'string') expect(read).toBe('y'.repeat(10));
    else expect(read).toBeInstanceOf(Error);
  });

  it('a custom fetch gets its body counted whatever it declares', async () => {
    const custom = createGuardedFetch({
      server: 'c',
      maxResponseBytes: 1000,
      fetch: async () => new Response(big, { headers: { 'content-length': '2' } }),
    });
    const response = await custom(`${peer.origin}/small`);
    await expect(response.text()).rejects.toMatchObject({ code: 'MCP_OPERATION_FAILED' });
  });
});

describe('a whole body is bounded on the response itself', () => {
  let peer: Loopback;
  const body = JSON.stringify({ text: 'é'.repeat(300) });
  beforeAll(async () => {
    // chunked (no content-length), in several writes, so the count runs over chunks
    peer = await startLoopback((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = req.url === '/big' ? 'x'.repeat(5000) : body;
      for (let i = 0; i < text.length; i += 100) res.write(text.slice(i, i + 100));
      res.end();
    });
  });
  afterAll(() => peer.close());
  const fetch = () => createGuardedFetch({ server: 'w', maxResponseBytes: 1000 });

  it('json(), text(), arrayBuffer() and body read the same bytes as an unbounded response', async () => {
    expect(await (await fetch()(`${peer.origin}/ok`)).json()).toEqual(JSON.parse(body));
    expect(await (await fetch()(`${peer.origin}/ok`)).text()).toBe(body);
    const buffer = await (await fetch()(`${peer.origin}/ok`)).arrayBuffer();
    expect(new TextDecoder().decode(buffer)).toBe(body);
    const streamed = await new Response((await fetch()(`${peer.origin}/ok`)).body).text();
    expect(streamed).toBe(body);
    const blob = await (await fetch()(`${peer.origin}/ok`)).blob();
    expect(await blob.text()).toBe(body);
    // read, then asked for its stream: the used body, as fetch gives it
    const used = await fetch()(`${peer.origin}/ok`);
    await used.text();
    expect(used.body).not.toBeNull();
  });

  it('a clone and its original both read the whole body (an OAuth error answer is read twice)', async () => {
    const response = await fetch()(`${peer.origin}/ok`);
    expect(await response.clone().json()).toEqual(JSON.parse(body));
    expect(await response.text()).toBe(body);
    const big = await fetch()(`${peer.origin}/big`);
    const twin = big.clone();
    await expect(twin.text()).rejects.toMatchObject({ code: 'MCP_OPERATION_FAILED' });
    await expect(big.json()).rejects.toMatchObject({ code: 'MCP_OPERATION_FAILED' });
  });

  it.each(['json', 'text', 'arrayBuffer', 'bytes', 'blob', 'body'] as const)(
    'an undeclared oversized body fails %s with the limit error',
    async (how) => {
      const response = await fetch()(`${peer.origin}/big`);
      const error = await rejection(() =>
        how === 'body'
          ? new Response(response.body).text()
          : (response as unknown as Record<string, () => Promise<unknown>>)[how]!(),
      );
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: 'MCP_OPERATION_FAILED', server: 'w' });
    },
  );
});
