#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { summarise } from './summary.js';
import { table } from './table.js';
import { parseLine } from './units.js';

export function run(argv, input) {
  if (argv.includes('--table')) {
    return table(input.split('\n').filter(Boolean).map(parseLine));
  }
  return summarise(input);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1])) {
  console.log(run(process.argv.slice(2), readFileSync(0, 'utf8')));
}
