export function label(n: number): string {
  return n;
}
