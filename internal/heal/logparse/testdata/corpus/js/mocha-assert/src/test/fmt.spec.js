const assert = require("assert");
const { money } = require("../fmt");

describe("money", function () {
  it("formats cents", function () {
    assert.strictEqual(money(150), "1.50");
  });
  it("formats zero", function () {
    assert.strictEqual(money(0), "0.00");
  });
});
