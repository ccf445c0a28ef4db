// app.mjs prints the configured greeting.
import { readFileSync } from "node:fs";
import { greeting } from "./config/greeting.mjs";

console.log(greeting, readFileSync.name);
