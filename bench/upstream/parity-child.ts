/**
 * Behaviour check of `bench/upstream-gain.ts` (started by it under the same resolve hook as a
 * measurement, once per variant): the official client, whatever `@modelcontextprotocol/client`
 * resolves to, goes through scenarios that touch what the patches change, against a scripted
 * in-memory server, and prints one JSON line of outcomes. The parent requires every patched
 * variant's line to equal the unpatched client's.
 *
 * Scenarios: results with and without `_meta`, an invalid result, an error response, a
 * timeout, progress that resets the timeout, an abort (and the cancel the server receives),
 * output-schema checks through the response cache and through `toolDefinition`, `ping`, a
 * call after close, the timers that keep the process alive (none when idle, one while a
 * request is pending), output-schema checks through an async and a failing cache store; and
 * `deserializeMessage` on lines of every kind.
 */
import {
  Client,
  InMemoryResponseCacheStore,
  InMemoryTransport,
  deserializeMessage,
  type JSONRPCMessage,
  type ResponseCacheStore,
} from '@modelcontextprotocol/client';

type Outcome = { readonly ok: unknown } | { readonly error: unknown };

function describeError(err: unknown): unknown {
  if (!(err instanceof Error)) return { thrown: String(err) };
  const { code, data } = err as { code?: unknown; data?: unknown };
  return { name: err.constructor.name, code, message: err.message, data };
}

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (err) {
    return { error: describeError(err) };
  }
}

const TOOLS = [
  { name: 'echo', inputSchema: { type: 'object' } },
  {
    name: 'typed',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  },
];

/** A scripted legacy-era server on the other end of an in-memory pair. */
function scriptedServer(
  transport: InMemoryTransport,
  cancels: unknown[],
  slowArrived: () => void,
): void {
  const answer = (id: unknown, result: unknown) =>
    void transport.send({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
  transport.onmessage = (message) => {
    const m = message as { id?: unknown; method?: string; params?: Record<string, unknown> };
    if (m.method === 'notifications/cancelled') cancels.push(m.params);
    if (m.id === undefined || m.method === undefined) return;
    const params = m.params ?? {};
    const meta = params._meta as { progressToken?: unknown } | undefined;
    switch (m.method) {
      case 'initialize':
        return answer(m.id, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'scripted', version: '1' },
        });
      case 'ping':
        return answer(m.id, {});
      case 'tools/list':
        return answer(m.id, { tools: TOOLS });
      case 'tools/call':
        break;
      default:
        return void transport.send({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: -32601, message: 'Method not found' },
        } as JSONRPCMessage);
    }
    const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
    switch (params.name) {
      case 'echo':
        return answer(m.id, text('hello'));
      case 'meta':
        return answer(m.id, { ...text('meta'), _meta: { note: 'kept' }, extra: 1 });
      case 'bad':
        return answer(m.id, { content: 5 });
      case 'typed': {
        const bad = (params.arguments as { bad?: boolean } | undefined)?.bad === true;
        return answer(m.id, { ...text('{}'), structuredContent: { n: bad ? 'x' : 1 } });
      }
      case 'fail':
        return void transport.send({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: -32000, message: 'nope', data: { why: 'scripted' } },
        } as JSONRPCMessage);
      case 'progress': {
        // progress every 60 ms (the call's timeout is 100 ms), the answer after 240 ms
        for (const at of [60, 120, 180]) {
          setTimeout(() => {
            void transport.send({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: meta?.progressToken, progress: at, total: 240 },
            } as JSONRPCMessage);
          }, at);
        }
        setTimeout(() => answer(m.id, text('done')), 240);
        return;
      }
      default:
        slowArrived(); // 'slow': never answered
        return;
    }
  };
}

const LINES = [
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}]}}',
  '{"jsonrpc":"2.0","id":"s","result":{}}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":5}}}',
  '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1}}}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}',
  '{"jsonrpc":"2.0","id":1}',
  'not json',
];

function decodeLine(line: string): Outcome {
  try {
    const value = deserializeMessage(line) as unknown;
    return {
      ok: { json: JSON.stringify(value), proto: Object.getPrototypeOf(value) === Object.prototype },
    };
  } catch (err) {
    return { error: describeError(err) };
  }
}

/** A store whose every answer is a promise, and one whose `get` throws. */
function customStores(): Record<string, ResponseCacheStore> {
  const inner = new InMemoryResponseCacheStore();
  const later = async <T>(value: () => T): Promise<T> => value();
  return {
    async: {
      get: (key) => later(() => inner.get(key)),
      set: (key, entry) => later(() => inner.set(key, entry)),
      delete: (key) => later(() => inner.delete(key)),
      evict: (method) => later(() => inner.evict(method)),
      clear: () => later(() => inner.clear()),
    },
    failing: {
      get: () => {
        throw new Error('store down');
      },
      set: (key, entry) => inner.set(key, entry),
      delete: (key) => inner.delete(key),
      evict: (method) => inner.evict(method),
      clear: () => inner.clear(),
    },
  };
}

/** The output-schema checks through a custom response cache store (`callTool` reads it). */
async function otherStores(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const [name, store] of Object.entries(customStores())) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    scriptedServer(serverSide, [], () => {});
    await serverSide.start();
    const errors: string[] = [];
    const client = new Client({ name: 'parity', version: '0' }, { responseCacheStore: store });
    client.onerror = (err) => void errors.push(err.message);
    await client.connect(clientSide);
    await client.listTools();
    const call = (args: Record<string, unknown>) =>
      outcome(() => client.callTool({ name: 'typed', arguments: args }));
    results[name] = { good: await call({}), bad: await call({ bad: true }), errors };
    await client.close();
  }
  return results;
}

async function main(): Promise<void> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const cancels: unknown[] = [];
  let arrived = () => {};
  const slowArrives = () => new Promise<void>((resolve) => (arrived = resolve));
  scriptedServer(serverSide, cancels, () => arrived());
  await serverSide.start();
  const client = new Client({ name: 'parity', version: '0' });
  await client.connect(clientSide);
  const call = (
    name: string,
    options?: Parameters<Client['callTool']>[1],
    args: Record<string, unknown> = {},
  ) => outcome(() => client.callTool({ name, arguments: args }, options));
  const results: Record<string, unknown> = {};
  results.list = await outcome(() => client.listTools());
  results.echo = await call('echo');
  // timers keeping the process alive: none when idle, one while a request is pending
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  results.timersIdle = timers();
  const stop = new AbortController();
  const sent = slowArrives();
  const pending = call('slow', { timeout: 5000, signal: stop.signal });
  await sent;
  results.timersPending = timers();
  stop.abort('done');
  results.pending = await pending;
  results.timersAfter = timers();
  results.meta = await call('meta');
  results.bad = await call('bad');
  results.fail = await call('fail');
  results.typed = await call('typed');
  // the output schema from the cached tools/list, then from toolDefinition
  results.typedBad = await call('typed', undefined, { bad: true });
  results.typedBadGiven = await call('typed', { toolDefinition: TOOLS[1] as never }, { bad: true });
  results.ping = await outcome(() => client.ping());
  let started = Date.now();
  results.timeout = await call('slow', { timeout: 100 });
  const waited = Date.now() - started;
  results.timeoutWaited = waited >= 95 && waited < 2000;
  let progressed = 0;
  started = Date.now();
  results.progress = await call('progress', {
    timeout: 100,
    resetTimeoutOnProgress: true,
    onprogress: () => void progressed++,
  });
  results.progressed = progressed;
  const abort = new AbortController();
  setTimeout(() => abort.abort('stop'), 30);
  results.abort = await call('slow', { signal: abort.signal });
  await new Promise((resolve) => setTimeout(resolve, 20));
  results.cancels = cancels;
  results.inFlight = await Promise.all([call('echo'), call('typed'), call('fail'), call('echo')]);
  await client.close();
  results.afterClose = await call('echo');
  results.lines = LINES.map(decodeLine);
  results.stores = await otherStores();
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

await main();
