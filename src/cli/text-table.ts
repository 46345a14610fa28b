/** One cell of a {@link textTable}: its text, painted (colored) after the width is taken. */
export interface TableCell {
  readonly text: string;
  /** Wraps the text in color codes, which must not count in the column's width. */
  readonly paint?: (text: string) => string;
}

/**
 * Lines of a table whose columns line up: every column as wide as its widest cell (the
 * header's included), two spaces between columns, no spaces at the end of a line. A cell's
 * `paint` is applied to its text alone, so colors never shift a column.
 */
export function textTable(
  header: readonly string[],
  rows: readonly (readonly (TableCell | string)[])[],
): string[] {
  const cells: TableCell[][] = [header.map(cellOf), ...rows.map((r) => r.map(cellOf))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]?.text.length ?? 0)));
  return cells.map((r) =>
    r
      .map((cell, i) => {
        const pad = ' '.repeat(widths[i]! - cell.text.length);
        return `${cell.paint ? cell.paint(cell.text) : cell.text}${pad}`;
      })
      .join('  ')
      .trimEnd(),
  );
}

function cellOf(cell: TableCell | string): TableCell {
  return typeof cell === 'string' ? { text: cell } : cell;
}
