export function total(price: number): number {
  return price * quantity + shipping;
}
