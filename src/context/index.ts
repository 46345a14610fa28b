// The session archive and the built-in `context` tool (SPEC 7.5). Any new export added here
// becomes public API once src/index.ts re-exports it. Named exports only.

// Archive storage
export {
  MemoryArchiveStore,
  newArchiveRef,
  DEFAULT_ARCHIVE_BYTES_PER_SESSION,
} from './archive-store.js';
export type {
  ArchivedItem,
  ArchivedItemKind,
  ArchiveItemInput,
  ArchiveStore,
  MemoryArchiveStoreOptions,
} from './archive-store.js';

// Archiving tool results
export {
  archiveToolResult,
  unarchivedResult,
  DEFAULT_ARCHIVE_THRESHOLD_BYTES,
  DEFAULT_ARCHIVE_PREVIEW_BYTES,
} from './archive-result.js';
export type { ArchiveToolResultOptions } from './archive-result.js';

// The `context` tool
export {
  ContextToolExecutor,
  CONTEXT_TOOL_NAME,
  CONTEXT_TOOL_DEFINITION,
  CONTEXT_MAX_LENGTH,
} from './context-tool.js';
export type { ContextPage } from './context-tool.js';

// Shaping model requests to the context limits
export {
  ContextManager,
  DEFAULT_CONTEXT_MAX_TOKENS,
  DEFAULT_CONTEXT_MAX_MESSAGES,
} from './context-manager.js';
export type { ContextManagerOptions, ContextRequest } from './context-manager.js';
export { BYTES_PER_TOKEN, IMAGE_TOKEN_ESTIMATE } from './context-measure.js';
export type { ContextMetrics, ContextTokenizer } from './context-measure.js';
export type { ContextLimits } from './select-units.js';
export type { ContextCompactedEvent } from './context-events.js';

// Options
export type { ContextOptions, ContextStrategy, ContextSummarizer } from './context-options.js';
