import { expect, it } from "vitest";
import { total } from "../lib/cart.js";

it("totals an empty cart", () => {
  expect(total({})).toBe(0);
});
