export { Cart } from "./cart";
export type { Line } from "./cart";
