import { format } from "./formatters";

console.log(format(1));
