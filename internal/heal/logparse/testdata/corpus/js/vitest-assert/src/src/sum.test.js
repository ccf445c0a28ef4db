import { describe, expect, test } from "vitest";
import { sum } from "./sum.js";

describe("sum", () => {
  test("adds", () => {
    expect(sum(1, 2)).toBe(3);
  });
});
