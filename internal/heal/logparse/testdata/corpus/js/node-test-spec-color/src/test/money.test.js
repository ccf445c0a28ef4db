const { describe, it } = require("node:test");
const assert = require("node:assert");
const { cents, total } = require("../src/money");

describe("money", () => {
  it("formats cents", () => {
    assert.strictEqual(cents(150), "1.05");
  });

  it("totals items", () => {
    assert.strictEqual(total([{ val: 1 }]), "0.01");
  });
});
