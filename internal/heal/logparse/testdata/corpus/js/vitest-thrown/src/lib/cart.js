export function total(cart) {
  return cart.items.reduce((s, i) => s + i.price, 0);
}
