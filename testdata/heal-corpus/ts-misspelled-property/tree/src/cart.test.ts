import { Cart } from "./cart";

declare function require(name: string): any;
const test = require("node:test");
const assert = require("node:assert");

test("totals merge lines of the same sku", () => {
  const c = new Cart();
  c.add({ sku: "a", unitPrice: 2, quantity: 1 });
  c.add({ sku: "a", unitPrice: 2, quantity: 2 });
  c.add({ sku: "b", unitPrice: 5, quantity: 1 });
  assert.strictEqual(c.count(), 2);
  assert.strictEqual(c.total(), 11);
});
