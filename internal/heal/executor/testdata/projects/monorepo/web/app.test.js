const test = require("node:test");
const assert = require("node:assert");

test("web renders", () => {
  assert.strictEqual(["a", "b"].join("/"), "a/b");
});
