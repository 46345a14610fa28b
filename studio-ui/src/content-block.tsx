import { JsonView } from './json-view.js';

type Block = Readonly<Record<string, unknown>>;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** A `data:` URL for an image block, or undefined when the block is not a safe image. */
export function imageSource(mimeType: unknown, data: unknown): string | undefined {
  const mime = str(mimeType);
  const base64 = str(data);
  if (!mime || !base64 || !/^image\/[\w.+-]+$/.test(mime) || !BASE64.test(base64)) return undefined;
  return `data:${mime};base64,${base64.replace(/\s/g, '')}`;
}

function ResourceBlock({ resource, link }: { readonly resource: Block; readonly link: boolean }) {
  const text = str(resource.text);
  const blob = str(resource.blob);
  const image = blob ? imageSource(resource.mimeType, blob) : undefined;
  return (
    <div class="block resource" data-testid="result-resource">
      <div class="block-head">
        <span class="tag">{link ? 'resource link' : 'resource'}</span>
        <code>{str(resource.uri) ?? '(no uri)'}</code>
        {str(resource.mimeType) && <span class="muted">{str(resource.mimeType)}</span>}
      </div>
      {(str(resource.name) || str(resource.title)) && (
        <div>{str(resource.title) ?? str(resource.name)}</div>
      )}
      {str(resource.description) && <div class="muted">{str(resource.description)}</div>}
      {text !== undefined && <pre class="text">{text}</pre>}
      {image && <img class="result-image" src={image} alt={str(resource.uri) ?? 'image'} />}
      {blob && !image && <div class="muted">binary, {Math.floor((blob.length * 3) / 4)} bytes</div>}
    </div>
  );
}

/** One content block of a tool result or prompt message. */
export function ContentBlock({ block }: { readonly block: Block }) {
  switch (block.type) {
    case 'text':
      return (
        <pre class="block text" data-testid="result-text">
          {str(block.text) ?? ''}
        </pre>
      );
    case 'image': {
      const src = imageSource(block.mimeType, block.data);
      return src ? (
        <img class="block result-image" data-testid="result-image" src={src} alt="tool image" />
      ) : (
        <JsonView value={block} testId="result-json" />
      );
    }
    case 'audio':
      return (
        <div class="block muted">
          audio ({str(block.mimeType) ?? 'unknown type'}), not played by the studio
        </div>
      );
    case 'resource_link':
      return <ResourceBlock resource={block} link />;
    case 'resource':
      return typeof block.resource === 'object' && block.resource !== null ? (
        <ResourceBlock resource={block.resource as Block} link={false} />
      ) : (
        <JsonView value={block} testId="result-json" />
      );
    default:
      return <JsonView value={block} testId="result-json" />;
  }
}

/** A list of content blocks. */
export function ContentBlocks({ blocks }: { readonly blocks: readonly Block[] }) {
  return (
    <div class="blocks">
      {blocks.map((block, i) => (
        <ContentBlock key={i} block={block} />
      ))}
    </div>
  );
}
