import assert from 'node:assert/strict';
import { test } from 'node:test';
import { salesReport } from '../src/report.js';

test('sums sales per day, in day order', () => {
  const sales = [
    { day: '2026-11-02', cents: 500 },
    { day: '2026-11-01', cents: 1999 },
    { day: '2026-11-02', cents: 1 },
  ];
  assert.equal(salesReport(sales), '2026-11-01: $19.99\n2026-11-02: $5.01\nTotal: $25.00');
});
