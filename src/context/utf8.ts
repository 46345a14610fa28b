/** True for the second to fourth byte of a multi-byte UTF-8 sequence. */
export function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * The largest end, at most `end`, that does not split a character of `buf`: `end` itself, or
 * the start of the character `end` falls inside.
 */
export function characterBoundaryAtOrBefore(buf: Uint8Array, end: number): number {
  let at = Math.min(end, buf.length);
  while (at > 0 && at < buf.length && isContinuationByte(buf[at] ?? 0)) at--;
  return at;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  return buf.subarray(0, characterBoundaryAtOrBefore(buf, maxBytes)).toString('utf8');
}

/** The byte length of the UTF-8 sequence that starts with `lead` (1 for a stray byte). */
export function utf8SequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xc0 && lead <= 0xdf) return 2;
  return 1;
}
