// `require('muster-agent')` (and every subpath) resolves here: the package is ES modules only
// (SPEC 2), on every Node.js version, so a CommonJS caller learns that and what to write instead
// rather than getting a missing "exports" entry. The code is Node.js's own for the case.
throw Object.assign(
  new Error(
    "muster-agent is an ES module package and cannot be loaded with require(): use import (import { createAgent } from 'muster-agent'), or from CommonJS await import('muster-agent').",
  ),
  { code: 'ERR_REQUIRE_ESM' },
);
