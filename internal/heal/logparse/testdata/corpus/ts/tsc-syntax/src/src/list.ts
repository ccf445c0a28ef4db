export function first(xs: number[]): number {
  if (xs.length === 0 {
    return 0;
  }
  return xs[0];
}
