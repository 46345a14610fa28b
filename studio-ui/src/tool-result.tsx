import type { CallToolResponse } from '../../src/studio/api-types.js';
import { ContentBlocks } from './content-block.js';
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
