#!/usr/bin/env node
import { processIo } from './cli-io.js';
import { runCli } from './program.js';

// The `muster` bin: runs the command line and exits with its code (docs/cli.md). A reader that
// stops early (`muster mcp tools x | head`) ends the output quietly, as Unix tools do.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
process.exitCode = await runCli(process.argv.slice(2), processIo());
