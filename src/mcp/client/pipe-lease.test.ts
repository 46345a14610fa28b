import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { HandedOverError, SharedPipe } from './pipe-lease.js';

/** A stdio-like transport (a fake: it only records) of what is sent on it and its closes. */
function fakeStdio(): Transport & {
  sent: JSONRPCMessage[];
  closes: number;
  starts: number;
  pid: number;
  stderr: null;
} {
  const t = {
    sent: [] as JSONRPCMessage[],
    closes: 0,
    starts: 0,
    pid: 1,
    stderr: null,
    start: async () => void t.starts++,
    close: async () => void t.closes++,
    send: async (message: JSONRPCMessage) => void t.sent.push(message),
  };
  return t;
}

const request = (id: number, method: string): JSONRPCMessage => ({ jsonrpc: '2.0', id, method });

describe('SharedPipe', () => {
  it('a lease that does not own the pipe detaches on close: its sends are refused, the process stays for the next lease', async () => {
    const transport = fakeStdio();
    const pipe = new SharedPipe(transport);
    const trial = pipe.lease({ owning: false });
    let closed = 0;
    trial.onclose = () => closed++;
    await trial.start();
    await trial.send(request(1, 'initialize'));
    await trial.close();
    expect(closed).toBe(1);
    expect(transport.closes).toBe(0);
    await expect(trial.send(request(2, 'tools/list'))).rejects.toBeInstanceOf(HandedOverError);

    const next = pipe.lease({ owning: true });
    const got: JSONRPCMessage[] = [];
    next.onmessage = (m) => void got.push(m);
    await next.start();
    await next.send(request(3, 'server/discover'));
    next.deliver({ jsonrpc: '2.0', id: 3, result: {} } as JSONRPCMessage, undefined);
    expect(got).toHaveLength(1);
    expect(transport.starts).toBe(1);
    expect(transport.sent.map((m) => ('method' in m ? m.method : undefined))).toEqual([
      'initialize',
      'server/discover',
    ]);
    await next.close();
    expect(transport.closes).toBe(1);
  });

  it('an adopted lease closes the transport', async () => {
    const transport = fakeStdio();
    const lease = new SharedPipe(transport).lease({ owning: false });
    await lease.start();
    lease.adopt();
    await lease.close();
    expect(transport.closes).toBe(1);
  });
});
