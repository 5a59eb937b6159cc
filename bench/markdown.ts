// Markdown helpers of the bench's tables: rows, a table with its header rule, milliseconds and signed numbers.

/** One table row. */
export function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

/** A table: header, rule, rows. */
export function table(header: string[], rows: Array<Array<string | number>>): string[] {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)];
}

/** Milliseconds with two decimals, `–` when not measured. */
export const ms = (value: number): string => (Number.isNaN(value) ? '–' : value.toFixed(2));

/** A difference with its sign, `digits` decimals. */
export const signed = (value: number, digits = 0): string => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
