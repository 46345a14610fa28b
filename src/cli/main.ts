#!/usr/bin/env node
import { MusterError } from '../errors/index.js';
import { processIo } from './cli-io.js';
import { checkCliPackages } from './cli-packages.js';
import { exitCodeOf } from './exit-codes.js';

// The `muster` command's entry (`muster-agent/cli`, the bin of muster-agent-cli): runs the
// command line and exits with its code (docs/cli.md). A reader that stops early
// (`muster mcp tools x | head`) ends the output quietly, as Unix tools do. The command's own
// packages (commander, the prompts, the spinner, the studio's server) are not dependencies of
// the library: they are checked before the program that imports them loads, so a library-only
// install says what to install instead of failing on a missing module.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
const argv = process.argv.slice(2);
let missing: MusterError | undefined;
try {
  checkCliPackages();
} catch (err) {
  if (!MusterError.isInstance(err)) throw err;
  missing = err;
}
if (missing === undefined) {
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(argv, processIo());
} else {
  // the program cannot load: its `error [CODE]: message` line, and with --json its document
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (options.includes('--json'))
    process.stdout.write(
      `${JSON.stringify({ error: { code: missing.code, message: missing.message } })}\n`,
    );
  process.stderr.write(`error [${missing.code}]: ${missing.message}\n`);
  process.exitCode = exitCodeOf(missing.code);
}
