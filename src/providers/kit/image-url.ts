import type { ImagePart } from '../../model/index.js';

/** The URL of an image: its own URL, or a `data:` URL built from its base64 data. */
export function imageUrl(image: ImagePart): string | undefined {
  if (image.data !== undefined) return `data:${image.mimeType};base64,${image.data}`;
  return image.url;
}
