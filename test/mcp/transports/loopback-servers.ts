import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

/** A request a loopback server received. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
}

/** A started `node:http` server on 127.0.0.1, port 0. */
export interface Loopback {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/** Starts a loopback server that records every request and answers with `handler`. */
export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: { ...req.headers } });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      Promise.resolve(handler(req, res, Buffer.concat(chunks).toString('utf8'))).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A real v2 `McpServer` (both protocol eras) behind `createMcpHandler` + `toNodeHandler`. */
export async function startRealServer(): Promise<Loopback> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'loopback-real', version: '1.0.0' });
    server.registerTool(
      'sized',
      {
        description: 'Returns a text of the given number of bytes.',
        inputSchema: z.object({ bytes: z.number().int().min(0) }),
      },
      async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }),
    );
    return server;
  });
  const node = toNodeHandler(handler);
  return startLoopback(async (req, res, body) => {
    const parsed: unknown = body === '' ? undefined : JSON.parse(body);
    await node(req, res, parsed);
  });
}

/** How the scripted peer answers `tools/call`. */
export type CallAnswer =
  | { readonly kind: 'json'; readonly bytes: number; readonly contentLength: boolean }
  /** Writes `bytes` of an unterminated JSON body, then holds the connection open. */
  | { readonly kind: 'json-hold'; readonly bytes: number }
  /** One SSE event of `bytes`, unterminated, then holds the connection open. */
  | { readonly kind: 'sse-hold'; readonly bytes: number }
  /** `count` progress events of `bytes` each, then a small result. */
  | { readonly kind: 'sse-many'; readonly count: number; readonly bytes: number }
  /** A JSON-RPC error: the server saw the call and refused it. */
  | { readonly kind: 'rpc-error'; readonly code: number; readonly message: string }
  /** Opens an SSE response stream, then drops the connection without answering. */
  | { readonly kind: 'sse-drop' };

/**
 * A scripted 2025-era Streamable HTTP peer: answers `initialize` and `tools/list`, accepts
 * notifications, refuses GET (405), and answers `tools/call` as `answer` says.
 */
export async function startScriptedPeer(answer: () => CallAnswer): Promise<Loopback> {
  return startLoopback((req, res, body) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const msg = JSON.parse(body) as {
      id?: number;
      method: string;
      params?: { protocolVersion?: string };
    };
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const reply = (result: unknown) => {
      const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    };
    if (msg.method === 'initialize') {
      reply({
        protocolVersion: msg.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'scripted', version: '1.0.0' },
      });
      return;
    }
    if (msg.method === 'tools/list') {
      reply({ tools: [{ name: 'x', inputSchema: { type: 'object' } }] });
      return;
    }
    if (msg.method !== 'tools/call') {
      reply({});
      return;
    }
    const a = answer();
    const filler = (bytes: number) => 'x'.repeat(Math.max(0, bytes));
    const result = (text: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });
    switch (a.kind) {
      case 'json': {
        const text = result(filler(a.bytes));
        res.writeHead(200, {
          'content-type': 'application/json',
          ...(a.contentLength ? { 'content-length': String(Buffer.byteLength(text)) } : {}),
        });
        if (a.contentLength) res.end(text);
        else {
          // Several writes without a length: chunked transfer encoding.
          const half = Math.floor(text.length / 2);
          res.write(text.slice(0, half));
          res.end(text.slice(half));
        }
        return;
      }
      case 'json-hold':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"jsonrpc":"2.0","id":${msg.id},"result":{"content":[{"type":"text","text":"`);
        res.write(filler(a.bytes));
        return;
      case 'sse-hold':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: ${filler(a.bytes)}`);
        return;
      case 'sse-many': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < a.count; i++) {
          const note = {
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: filler(a.bytes) },
          };
          res.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
        }
        res.end(`event: message\ndata: ${result('done')}\n\n`);
        return;
      }
      case 'rpc-error': {
        const error = { code: a.code, message: a.message };
        const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, error });
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        return;
      }
      case 'sse-drop':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': open\n\n', () => res.destroy());
        return;
    }
  });
}

/**
 * A scripted legacy HTTP+SSE peer: `GET /sse` opens the event stream and names
 * `/messages` as the endpoint; each POSTed request is answered on that stream. A
 * `tools/call` is answered with one event of `oversizedEventBytes`, left unterminated.
 */
export async function startScriptedSsePeer(oversizedEventBytes: number): Promise<Loopback> {
  let stream: ServerResponse | undefined;
  return startLoopback((req, res, body) => {
    if (req.method === 'GET' && req.url === '/sse') {
      stream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages\n\n');
      return;
    }
    if (req.method !== 'POST' || stream === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(202).end();
    const msg = JSON.parse(body) as {
      id?: number;
      method: string;
      params?: { protocolVersion?: string };
    };
    if (msg.id === undefined) return;
    if (msg.method === 'tools/call') {
      stream.write(`event: message\ndata: ${'x'.repeat(oversizedEventBytes)}`);
      return;
    }
    const result =
      msg.method === 'initialize'
        ? {
            protocolVersion: msg.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'scripted-sse', version: '1.0.0' },
          }
        : {};
    stream.write(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n\n`,
    );
  });
}
