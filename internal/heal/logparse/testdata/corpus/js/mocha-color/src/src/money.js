function cents(n) {
  return (n / 100).toFixed(2);
}

function total(items) {
  let sum = 0;
  for (const i of items) sum += i.val;
  return cents(toVall(sum));
}

module.exports = { cents, total };
