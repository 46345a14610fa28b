/** `text` on one line (runs of whitespace made one space), cut to `max` characters with a marker. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}… (${flat.length - max} more)`;
}
