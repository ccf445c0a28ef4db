import test from "node:test";
import assert from "node:assert/strict";
import { slug } from "../str.mjs";

test("slugifies", () => {
  assert.equal(slug("Hello World"), "hello-world");
});
