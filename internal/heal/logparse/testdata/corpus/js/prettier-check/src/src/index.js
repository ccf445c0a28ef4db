import { total, format } from "./cart.js";

export const summary = (items) => format(total(items));
