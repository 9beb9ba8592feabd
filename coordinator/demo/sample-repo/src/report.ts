export interface Sale {
  day: string;
  cents: number;
}

// Formats cents for display. Kept local for now; see src/money.ts.
function toDollars(cents: number): string {
  return '$' + (cents / 100).toFixed(2);
}

export function salesReport(sales: Sale[]): string {
  const byDay = new Map<string, number>();
  for (const sale of sales) byDay.set(sale.day, (byDay.get(sale.day) ?? 0) + sale.cents);
  const lines = [...byDay.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, cents]) => `${day}: ${toDollars(cents)}`);
  const total = sales.reduce((sum, sale) => sum + sale.cents, 0);
  return [...lines, `Total: ${toDollars(total)}`].join('\n');
}
