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

/**
 * The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a character.
 * Only the first `maxBytes` UTF-16 units are encoded (each is at least one byte), so a
 * megabyte of text costs what its preview does.
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length <= maxBytes && Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  // a pair cut at the end encodes as U+FFFD (3 bytes) from a byte offset of at least
  // maxBytes - 1, so it never fits: the cut below drops it as it would drop the whole pair
  const head = text.slice(0, maxBytes);
  const buf = Buffer.from(head, 'utf8');
  if (buf.length <= maxBytes) return head;
  return buf.subarray(0, characterBoundaryAtOrBefore(buf, maxBytes)).toString('utf8');
}

/** The byte length of the UTF-8 sequence that starts with `lead` (1 for a stray byte). */
export function utf8SequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xc0 && lead <= 0xdf) return 2;
  return 1;
}
