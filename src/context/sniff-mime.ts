/** The MIME type given to archived text that looks like a JSON object or array. */
export const JSON_MIME_TYPE = 'application/json';

/** The MIME type given to any other archived text. */
export const TEXT_MIME_TYPE = 'text/plain';

/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/**
 * The MIME type of archived text, sniffed from its first and last characters that are not
 * JSON whitespace: `{`…`}` or `[`…`]` is `application/json`, anything else (including empty or
 * blank text) is `text/plain`. Nothing is parsed, so a megabyte costs the same as a line; the
 * type is a hint for whoever pages the archive, not a promise that the text parses.
 *
 * @example
 * ```ts
 * sniffTextMimeType(' {"rows": []}\n'); // 'application/json'
 * sniffTextMimeType('{ not closed');    // 'text/plain'
 * ```
 */
export function sniffTextMimeType(text: string): typeof JSON_MIME_TYPE | typeof TEXT_MIME_TYPE {
  let start = 0;
  while (start < text.length && isJsonSpace(text.charCodeAt(start))) start++;
  let end = text.length - 1;
  while (end > start && isJsonSpace(text.charCodeAt(end))) end--;
  if (end <= start) return TEXT_MIME_TYPE;
  const first = text.charCodeAt(start);
  const last = text.charCodeAt(end);
  return (first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d)
    ? JSON_MIME_TYPE
    : TEXT_MIME_TYPE;
}
