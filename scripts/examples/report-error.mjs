// Preloaded into every example the runner starts (scripts/run-examples.mjs): writes the
// uncaught error's name, code and message as JSON to MUSTER_EXAMPLE_ERROR_FILE, so that the
// runner names the code of a MusterError without reading it from a stack trace's text.
import { writeFileSync } from 'node:fs';
import process from 'node:process';

const file = process.env.MUSTER_EXAMPLE_ERROR_FILE;
if (file) {
  process.on('uncaughtExceptionMonitor', (err) => {
    const error = err instanceof Error ? err : new Error(String(err));
    const code = typeof error.code === 'string' ? error.code : undefined;
    writeFileSync(file, JSON.stringify({ name: error.name, code, message: error.message }));
  });
}
