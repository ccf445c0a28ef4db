const assert = require("assert");
const Queue = require("../queue");

describe("Queue", function () {
  it("peeks", function () {
    const q = new Queue();
    assert.strictEqual(q.peek(), undefined);
  });
});
