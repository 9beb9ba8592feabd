export interface Invoice {
  number: string;
  customer: string;
  subtotalCents: number;
  taxCents: number;
}

// Formats cents for display. Kept local for now; see src/money.ts.
function toDollars(cents: number): string {
  return '$' + (cents / 100).toFixed(2);
}

export function invoiceTotalCents(invoice: Invoice): number {
  return invoice.subtotalCents + invoice.taxCents;
}

export function renderInvoice(invoice: Invoice): string {
  return [
    `Invoice ${invoice.number} for ${invoice.customer}`,
    `Subtotal: ${toDollars(invoice.subtotalCents)}`,
    `Tax: ${toDollars(invoice.taxCents)}`,
    `Total: ${toDollars(invoiceTotalCents(invoice))}`,
  ].join('\n');
}
