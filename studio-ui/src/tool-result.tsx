import type { CallToolResponse } from '../../src/studio/api-types.js';
import { ArchivePagers } from './archive-pager.js';
import { ContentBlock, ContentBlocks } from './content-block.js';
import { JsonView } from './json-view.js';

/** A call's decision, duration and result. */
export function ToolResult({ response }: { readonly response: CallToolResponse }) {
  const { decision, result, durationMs } = response;
  return (
    <section class="card">
      <div class="result-head">
        <span class={`decision decision-${decision.decision}`} data-testid="tool-decision">
          {decision.decision} ({decision.stage})
        </span>
        <span class="muted" data-testid="tool-duration">
          {Math.round(durationMs)} ms
        </span>
        {decision.reason && <span class="muted">{decision.reason}</span>}
      </div>
      {result && (
        <div
          class={result.isError ? 'tool-result is-error' : 'tool-result'}
          data-testid="tool-result"
        >
          {result.isError && <div class="tag tag-error">error result</div>}
          {result.preview !== undefined && (
            <ContentBlock block={{ type: 'text', text: result.preview }} />
          )}
          {result.archived && <ArchivePagers items={result.archived} />}
          {result.rawOmitted && (
            <div class="muted">
              The raw result ({result.rawOmitted.bytes} bytes) was over 1 MiB: MCP Apps views get
              the preview only.
            </div>
          )}
          <ContentBlocks blocks={result.content} />
          {result.structuredContent !== undefined && (
            <div>
              <h4>Structured content</h4>
              <JsonView value={result.structuredContent} testId="result-json" />
            </div>
          )}
        </div>
      )}
    </section>
  );
}
