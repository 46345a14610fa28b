/** Pretty JSON, two spaces, exactly as the value is (no reordering). */
export function prettyJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** A block of pretty JSON. */
export function JsonView({ value, testId }: { readonly value: unknown; readonly testId?: string }) {
  return (
    <pre class="json" data-testid={testId}>
      {prettyJson(value)}
    </pre>
  );
}
