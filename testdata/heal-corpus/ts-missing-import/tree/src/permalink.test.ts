import { permalink } from "./permalink";

declare function require(name: string): any;
const test = require("node:test");
const assert = require("node:assert");

test("builds the permalink", () => {
  const p = { id: 7, title: "Hello, World!", published: new Date(Date.UTC(2024, 2, 5)) };
  assert.strictEqual(permalink(p), "/2024/03/hello-world-7");
});
