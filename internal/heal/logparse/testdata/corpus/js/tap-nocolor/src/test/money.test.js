const t = require("tap");
const { cents, total } = require("../src/money");

t.test("formats cents", (t) => {
  t.equal(cents(150), "1.05");
  t.end();
});

t.test("totals items", (t) => {
  t.equal(total([{ val: 1 }]), "0.01");
  t.end();
});
