import { MusterError } from '../../errors/index.js';
import type { ModelRequest } from '../../model/index.js';

/** How many images a request carries: user image parts and tool result media. */
export function countImages(request: ModelRequest): number {
  let count = 0;
  for (const message of request.messages) {
    if (message.role === 'user') count += message.content.filter((p) => p.type === 'image').length;
    if (message.role === 'tool') count += message.media?.length ?? 0;
  }
  return count;
}

/**
 * Refuses a request with images for a model that reads none, before anything is sent: an
 * image is never dropped silently.
 */
export function assertNoImages(request: ModelRequest, provider: string): void {
  const images = countImages(request);
  if (images === 0) return;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `The ${provider} model was set up without image support (images: false) but the request carries ${images} image(s): use a model that reads images, or send text only.`,
    { details: { provider, images } },
  );
}
