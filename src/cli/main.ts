#!/usr/bin/env node
import { processIo } from './cli-io.js';
import { runCli } from './program.js';

// The `muster` bin: runs the command line and exits with its code (docs/cli.md).
process.exitCode = await runCli(process.argv.slice(2), processIo());
