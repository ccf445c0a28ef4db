const { describe, it } = require("node:test");
const assert = require("node:assert");
const { twice } = require("../src/util");

describe("node twice", () => {
  it("doubles 3", () => {
    assert.equal(twice(3), 6);
  });
  it("ok one", () => {
    assert.ok(true);
  });
});
