import { describe, expect, it } from "vitest";
import { Cart } from "../src/cart";
import { formatCents } from "../src/money.mjs";

describe("Cart", () => {
  it("sums its lines", () => {
    const cart: Cart = new Cart();
    cart.add({ sku: "a", cents: 250 }).add({ sku: "b", cents: 100 });
    expect(cart.total()).toBe(350);
  });

  it("starts empty", () => {
    expect(Cart.empty().total()).toBe(0);
  });

  it("formats cents", () => {
    expect(formatCents(1205)).toBe("$12.05");
  });
});
