/** UTF-8 byte length of a string, without allocating a buffer. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
