import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMoney } from '../src/money.js';

test('formats cents with thousands separators', () => {
  assert.equal(formatMoney(123456), '$1,234.56');
  assert.equal(formatMoney(5), '$0.05');
});

test('formats negative amounts with a leading minus', () => {
  assert.equal(formatMoney(-250), '-$2.50');
});

test('refuses fractional cents', () => {
  assert.throws(() => formatMoney(1.5), RangeError);
});
