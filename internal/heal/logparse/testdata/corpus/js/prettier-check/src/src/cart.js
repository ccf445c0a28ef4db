// Shopping cart totals.
export function total(items) {
  return items.reduce((sum, it) => sum + it.price * it.qty, 0)
}

export function format(cents) {
  return `$${(cents / 100).toFixed(2)}`;
}
