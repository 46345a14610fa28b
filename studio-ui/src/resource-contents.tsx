import type { ReadResourceResponse } from '../../src/studio/api-types.js';
import { imageSource } from './content-block.js';

/** The contents of a `resources/read`: text as text, images shown, other blobs sized. */
export function ResourceContents({ response }: { readonly response: ReadResourceResponse }) {
  return (
    <div class="resource-content" data-testid="resource-content">
      {response.contents.map((content, i) => {
        const uri = typeof content.uri === 'string' ? content.uri : '';
        const mime = typeof content.mimeType === 'string' ? content.mimeType : undefined;
        const blob = typeof content.blob === 'string' ? content.blob : undefined;
        const image = blob ? imageSource(mime, blob) : undefined;
        return (
          <div class="block" key={i}>
            <div class="block-head">
              <code>{uri}</code>
              {mime && <span class="muted">{mime}</span>}
            </div>
            {typeof content.text === 'string' && <pre class="text">{content.text}</pre>}
            {image && <img class="result-image" src={image} alt={uri} />}
            {blob && !image && (
              <div class="muted">binary, {Math.floor((blob.length * 3) / 4)} bytes</div>
            )}
          </div>
        );
      })}
    </div>
  );
}
