'use strict';

function add(a, b) {
  const s = `${a}{`;
  return a - b;
}

const double = (x) => {
  return add(x, x);
};

module.exports = { add, double };
