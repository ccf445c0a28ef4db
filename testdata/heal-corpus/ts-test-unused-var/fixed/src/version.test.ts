import { compare, parse } from "./version";

declare function require(name: string): any;
const test = require("node:test");
const assert = require("node:assert");

test("parses versions", () => {
  assert.deepStrictEqual(parse("v1.2.3"), { major: 1, minor: 2, patch: 3 });
  assert.throws(() => parse("1.2"), /not a version/);
});

test("orders versions", () => {
  const order = ["0.9.9", "1.0.0", "1.2.0", "1.10.0"].map(parse);
  for (let i = 1; i < order.length; i++) {
    assert.ok(compare(order[i - 1], order[i]) < 0, `${i}`);
  }
});
