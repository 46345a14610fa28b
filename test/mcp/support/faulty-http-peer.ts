import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the peer answers the next `tools/call`. */
export type PeerCallPlan =
  /** A normal JSON answer (`text: "ok <n>"`). */
  | 'answer'
  /** Reads the whole request, then resets the connection (TCP RST) without answering. */
  | 'reset-after-request'
  /** Reads the request, then closes the connection (FIN) without answering. */
  | 'close-after-request'
  /** Sends the headers and half of a JSON body, then resets the connection. */
  | 'reset-mid-body'
  /** Opens an SSE answer, sends half of an event, then resets the connection. */
  | 'reset-mid-sse'
  /** Answers with a redirect (307) elsewhere, before doing anything. */
  | 'redirect';

/** A scripted 2025-era Streamable HTTP peer on 127.0.0.1 that misbehaves on demand. */
export interface FaultyHttpPeer {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** How many `tools/call` requests it accepted to run (a redirected one is not counted). */
  readonly calls: () => number;
  /** The plan of the next calls (default `answer`). */
  plan: PeerCallPlan;
  /** Stops listening and drops every connection: later requests are refused. */
  stop(): Promise<void>;
}

/**
 * Starts the peer. Every answer carries `Connection: close`, so no socket is reused between
 * requests: once stopped, the next request meets a refused connection, never a stale socket.
 */
export async function startFaultyHttpPeer(): Promise<FaultyHttpPeer> {
  let calls = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const peer: FaultyHttpPeer = {
    url: '',
    calls: () => calls,
    plan: 'answer',
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
    res.setHeader('connection', 'close');
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
    const reply = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    if (msg.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        reply({
          protocolVersion: msg.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'faulty-http', version: '1.0.0' },
        }),
      );
      return;
    }
    if (msg.method === 'tools/list') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(reply({ tools: [{ name: 'x', inputSchema: { type: 'object' } }] }));
      return;
    }
    if (msg.method !== 'tools/call') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(reply({}));
      return;
    }
    if (peer.plan === 'redirect') {
      res.writeHead(307, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      return;
    }
    calls += 1;
    const text = reply({ content: [{ type: 'text', text: `ok ${calls}` }] });
    switch (peer.plan) {
      case 'answer':
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        return;
      case 'reset-after-request':
        req.socket.resetAndDestroy();
        return;
      case 'close-after-request':
        req.socket.destroy();
        return;
      case 'reset-mid-body':
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        });
        res.write(text.slice(0, 10), () => req.socket.resetAndDestroy());
        return;
      case 'reset-mid-sse':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: ${text.slice(0, 10)}`, () => req.socket.resetAndDestroy());
        return;
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(peer, { url: `http://127.0.0.1:${port}/mcp` });
}

/** A legacy HTTP+SSE peer whose event stream is cut when a `tools/call` arrives. */
export interface CuttingSsePeer {
  /** `http://127.0.0.1:<port>/sse` */
  readonly url: string;
  /** How many `tools/call` requests arrived. */
  readonly calls: () => number;
  stop(): Promise<void>;
}

/**
 * Starts a scripted legacy SSE peer: `GET /sse` opens the event stream (endpoint
 * `/messages`); requests are answered on it, except `tools/call`, which is accepted (202) and
 * then the stream is destroyed without an answer. Later streams are refused (503).
 */
export async function startCuttingSsePeer(): Promise<CuttingSsePeer> {
  let calls = 0;
  let stream: ServerResponse | undefined;
  let cut = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET') {
        if (cut) {
          res.writeHead(503).end();
          return;
        }
        stream = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages\n\n');
        return;
      }
      res.writeHead(202).end();
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string };
      };
      if (msg.id === undefined) return;
      if (msg.method === 'tools/call') {
        calls += 1;
        cut = true;
        stream?.socket?.destroy();
        return;
      }
      const result =
        msg.method === 'initialize'
          ? {
              protocolVersion: msg.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'cutting-sse', version: '1.0.0' },
            }
          : msg.method === 'tools/list'
            ? { tools: [{ name: 'x', inputSchema: { type: 'object' } }] }
            : {};
      stream?.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n\n`,
      );
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    calls: () => calls,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
