export interface CartLine {
  sku: string;
  unitCents: number;
  quantity: number;
}

// Formats cents for display. Kept local for now; see src/money.ts.
function toDollars(cents: number): string {
  return '$' + (cents / 100).toFixed(2);
}

export function cartTotalCents(lines: CartLine[]): number {
  return lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0);
}

export function describeCart(lines: CartLine[]): string {
  const rows = lines.map((line) => `${line.quantity} x ${line.sku} @ ${toDollars(line.unitCents)}`);
  return [...rows, `Total: ${toDollars(cartTotalCents(lines))}`].join('\n');
}
