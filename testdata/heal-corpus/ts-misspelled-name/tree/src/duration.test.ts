import { formatDuration } from "./duration";

declare function require(name: string): any;
const test = require("node:test");
const assert = require("node:assert");

test("formats durations", () => {
  assert.strictEqual(formatDuration(3723), "1h 2m 3s");
  assert.strictEqual(formatDuration(60), "1m");
  assert.strictEqual(formatDuration(0), "0s");
});
