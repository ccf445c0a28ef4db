const test = require("node:test");
const assert = require("node:assert");
const { add } = require("../calc");

test("adds", () => {
  assert.strictEqual(add(2, 2), 4);
});

test("zero", () => {
  assert.strictEqual(add(0, 0), 0);
});
