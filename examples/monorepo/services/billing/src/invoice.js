'use strict';
// An invoice's lines: each line's tax in cents, and the total (integer cents throughout).
const { percentOf } = require('../../../libs/money/round');

function invoice(lines, taxBasisPoints) {
  const taxed = lines.map(({ sku, cents }) => ({ sku, cents, tax: percentOf(cents, taxBasisPoints) }));
  const total = taxed.reduce((sum, l) => sum + l.cents + l.tax, 0);
  return { lines: taxed, total };
}
module.exports = { invoice };
