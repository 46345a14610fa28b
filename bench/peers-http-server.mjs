#!/usr/bin/env node
// The dual Streamable HTTP fixture (test/fixtures/mcp/http-servers.mjs, `echo {text}`) in a
// process of its own, so that `npm run bench:peers` can run it on its own CPU like the stdio
// servers. Prints its URL as the first line of stdout; closes when stdin ends or on SIGTERM.
import process from 'node:process';
import { startDualHttpServer } from '../test/fixtures/mcp/http-servers.mjs';

const server = await startDualHttpServer();
process.stdout.write(`${server.url}\n`);

let closing = false;
async function stop() {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
