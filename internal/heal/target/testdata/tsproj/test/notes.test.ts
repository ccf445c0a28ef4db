import { expect, it } from "vitest";
import { parse } from "../src/notes";

it("parses names", () => {
  expect(parse("a b")).toEqual(["a", "b"]);
});
