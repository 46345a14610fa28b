#!/usr/bin/env node
// A small MCP server (stdio, protocol 2026-07-28) for examples/parked-form.ts: `transfer`
// asks the user to confirm with an `input_required` result and keeps what it needs in an
// HMAC-sealed `requestState`, so whichever process of it gets the retry can finish the call.
import {
  McpServer,
  acceptedContent,
  createRequestStateCodec,
  inputRequired,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const codec = createRequestStateCodec({ key: 'example-only-key-for-the-confirming-bank!' });

serveStdio(
  () => {
    const server = new McpServer(
      { name: 'confirming-bank', version: '1.0.0' },
      { requestState: { verify: codec.verify } },
    );
    server.registerTool(
      'transfer',
      {
        description: 'Transfers money once the account holder confirms.',
        inputSchema: z.object({ to: z.string(), amountEur: z.number() }),
      },
      async ({ to, amountEur }, ctx) => {
        const state = ctx.mcpReq.requestState();
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
        if (state !== undefined) {
          if (answer?.ok !== true) return { content: [{ type: 'text', text: 'not confirmed' }] };
          return { content: [{ type: 'text', text: `sent ${amountEur} EUR to ${to}` }] };
        }
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Send ${amountEur} EUR to ${to}?`,
              requestedSchema: {
                type: 'object',
                properties: { ok: { type: 'boolean', title: 'Confirm' } },
                required: ['ok'],
              },
            }),
          },
          requestState: await codec.mint({ to, amountEur }),
        });
      },
    );
    return server;
  },
  { legacy: 'reject' },
);
