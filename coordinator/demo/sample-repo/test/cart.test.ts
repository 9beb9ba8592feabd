import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cartTotalCents, describeCart } from '../src/cart.js';

const lines = [
  { sku: 'apple', unitCents: 125, quantity: 4 },
  { sku: 'melon', unitCents: 349, quantity: 1 },
];

test('totals a cart in cents', () => {
  assert.equal(cartTotalCents(lines), 849);
});

test('describes a cart line by line', () => {
  assert.equal(describeCart(lines), '4 x apple @ $1.25\n1 x melon @ $3.49\nTotal: $8.49');
});
