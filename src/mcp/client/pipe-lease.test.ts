import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { HandedOverError, SharedPipe } from './pipe-lease.js';

/** A stdio-like transport that records what is sent on it. */
function fakeStdio(): Transport & { sent: JSONRPCMessage[]; pid: number; stderr: null } {
  const sent: JSONRPCMessage[] = [];
  return {
    sent,
    pid: 1,
    stderr: null,
    start: async () => undefined,
    close: async () => undefined,
    send: async (message) => void sent.push(message),
  };
}

const probe = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id: `server-discover-probe-${n}`,
  method: 'server/discover',
});
const request = (id: number, method: string): JSONRPCMessage => ({ jsonrpc: '2.0', id, method });
const bare = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } };
const tasks = {
  supportedVersions: ['2026-07-28'],
  capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
const answer = (n: number, result: unknown): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id: `server-discover-probe-${n}`, result }) as JSONRPCMessage;

describe('PipeLease with holdAfterChoice', () => {
  it('holds back what follows a discover answer without extensions, initialize excepted', async () => {
    const lease = new SharedPipe(fakeStdio()).lease({ owning: true, holdAfterChoice: true });
    await lease.start();
    await lease.send(probe(1));
    lease.deliver(answer(1, bare), undefined);
    await expect(lease.send(request(1, 'subscriptions/listen'))).rejects.toBeInstanceOf(
      HandedOverError,
    );
  });

  it('passes once the client sent initialize by itself: a late discover answer holds nothing back', async () => {
    const transport = fakeStdio();
    const lease = new SharedPipe(transport).lease({ owning: true, holdAfterChoice: true });
    await lease.start();
    await lease.send(probe(1));
    // the probe timed out: the client goes legacy on the same pipe
    await lease.send(request(0, 'initialize'));
    lease.deliver(answer(1, bare), undefined);
    await lease.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await lease.send(request(1, 'tools/list'));
    expect(transport.sent.map((m) => ('method' in m ? m.method : undefined))).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
  });

  it('reads only the answer to the probe outstanding, not a late one to a probe sent again', async () => {
    const lease = new SharedPipe(fakeStdio()).lease({ owning: true, holdAfterChoice: true });
    await lease.start();
    await lease.send(probe(1));
    await lease.send(probe(2)); // the first timed out and was sent again
    lease.deliver(answer(2, tasks), undefined);
    await lease.send(request(1, 'subscriptions/listen'));
    lease.deliver(answer(1, bare), undefined); // late, for nobody
    await expect(lease.send(request(2, 'tools/list'))).resolves.toBeUndefined();
  });
});
