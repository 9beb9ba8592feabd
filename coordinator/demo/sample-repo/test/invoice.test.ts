import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invoiceTotalCents, renderInvoice } from '../src/invoice.js';

const invoice = { number: 'A-7', customer: 'Ada', subtotalCents: 10000, taxCents: 825 };

test('adds tax to the subtotal', () => {
  assert.equal(invoiceTotalCents(invoice), 10825);
});

test('renders an invoice', () => {
  assert.equal(renderInvoice(invoice), 'Invoice A-7 for Ada\nSubtotal: $100.00\nTax: $8.25\nTotal: $108.25');
});
