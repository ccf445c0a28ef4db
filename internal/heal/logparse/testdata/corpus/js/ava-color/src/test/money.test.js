const test = require("ava");
const { cents, total } = require("../src/money");

test("formats cents", (t) => {
  t.is(cents(150), "1.05");
});

test("totals items", (t) => {
  t.is(total([{ val: 1 }]), "0.01");
});
