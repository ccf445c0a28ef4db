const { test } = require("uvu");
const assert = require("uvu/assert");
const { cents, total } = require("../src/money");

test("formats cents", () => {
  assert.is(cents(150), "1.05");
});

test("totals items", () => {
  assert.is(total([{ val: 1 }]), "0.01");
});

test.run();
