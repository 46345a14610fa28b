import type { PolicySubject } from '../policy/index.js';
import type { CatalogEntry } from '../tools/index.js';

/** One subject per catalog entry (see {@link toolSubject}). */
const SUBJECTS = new WeakMap<CatalogEntry, PolicySubject>();

/**
 * What the policy's `visibleTools` and `mcp.alwaysLoad` patterns are matched against for a
 * tool of the run's catalog: its name, and its server and name there for an MCP tool. Made
 * once per entry and frozen (it is shared): an unchanged listing gives a run the same entries
 * as the run before, so a run over an unchanged catalog makes none.
 */
export function toolSubject(e: CatalogEntry): PolicySubject {
  let subject = SUBJECTS.get(e);
  if (subject === undefined) {
    subject = Object.freeze({
      kind: 'tool',
      name: e.name,
      ...(e.info.server !== undefined ? { server: e.info.server } : {}),
      ...(e.info.originalName !== undefined ? { originalName: e.info.originalName } : {}),
    });
    SUBJECTS.set(e, subject);
  }
  return subject;
}
