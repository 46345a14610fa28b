import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test file gets its own MUSTER_HOME, so tests never read or write the user's ~/.muster
// (config files, protocol verdicts) and never see each other's state.
process.env['MUSTER_HOME'] = mkdtempSync(join(tmpdir(), 'muster-test-home-'));
