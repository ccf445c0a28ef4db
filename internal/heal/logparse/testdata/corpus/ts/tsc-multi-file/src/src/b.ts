export const b = 1;
export function f(x: string) { return x.lenght; }
