import { readFileSync } from "fs";

export function area(w: number, h: number): number {
  const unusedLocal = 3;
  return w * h;
}

export const a = area(2);
