import { b } from "./b";
export const a: number = b + "x";
