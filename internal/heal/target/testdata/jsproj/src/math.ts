export const mul = (a: number, b: number): number => a + b;

export function div(a: number, b: number): number {
  if (b === 0) {
    throw new Error("div by zero");
  }
  return a / b;
}
