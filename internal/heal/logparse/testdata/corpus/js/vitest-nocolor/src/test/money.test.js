import { describe, expect, test } from "vitest";
import money from "../src/money.js";

describe("money", () => {
  test("formats cents", () => {
    expect(money.cents(150)).toBe("1.05");
  });

  test("totals items", () => {
    expect(money.total([{ val: 1 }])).toBe("0.01");
  });
});
