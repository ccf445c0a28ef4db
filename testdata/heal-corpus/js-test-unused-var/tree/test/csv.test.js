import { test } from "node:test";
import assert from "node:assert/strict";

import { splitLine } from "../src/csv.js";

test("splits plain fields", () => {
  assert.deepEqual(splitLine("a,b,,c"), ["a", "b", "", "c"]);
});

test("reads quoted fields", () => {
  const line = '"x, y","say ""hi""",z';
  const expected = ["x, y", 'say "hi"', "z"];
  const width = 3;
  assert.deepEqual(splitLine(line), expected);
  assert.throws(() => splitLine('"open'), /unterminated/);
});
