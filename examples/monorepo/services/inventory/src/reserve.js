'use strict';
// Reserves stock for an order, warehouse by warehouse in the order given; never below zero.
function reserve(stock, wanted) {
  let left = wanted;
  const taken = stock.map(({ warehouse, units }) => {
    const take = Math.min(units, left);
    left -= take;
    return { warehouse, take, remaining: units - take };
  });
  return { taken, short: left };
}
module.exports = { reserve };
