package rules_test

// compileCases are everyday slips: a forgotten import, alone or beside
// another error of the same file. The fixed file must read as its author
// would have written it: the import in the file's import block, in the
// order the language's formatter keeps.
var compileCases = []compileCase{
	{
		name: "go-two-std-imports-one-line", tools: []string{"go"}, cmd: "go build -o /dev/null .", iterations: 1,
		files: map[string]string{
			"go.mod": "module example.com/demo\n\ngo 1.22\n",
			"main.go": `
package main

import "fmt"

// label formats a count for the log.
func label(n int) string {
	return strings.ToUpper("n=") + strconv.Itoa(n)
}

func main() {
	fmt.Println(label(42))
}
`,
		},
		want: map[string]string{"main.go": `
package main

import (
	"fmt"
	"strconv"
	"strings"
)

// label formats a count for the log.
func label(n int) string {
	return strings.ToUpper("n=") + strconv.Itoa(n)
}

func main() {
	fmt.Println(label(42))
}
`},
	},
	{
		name: "go-std-import-beside-module-group", tools: []string{"go"}, cmd: "go build -o /dev/null .", iterations: 1,
		files: map[string]string{
			"go.mod":              "module example.com/demo\n\ngo 1.22\n",
			"internal/tally/t.go": "// Package tally counts.\npackage tally\n\n// Count returns len(xs).\nfunc Count(xs []string) int { return len(xs) }\n",
			"main.go": `
package main

import (
	"fmt"
	"os"

	"example.com/demo/internal/tally"
)

func main() {
	words := strings.Fields(os.Args[0])
	fmt.Println(tally.Count(words))
}
`,
		},
		want: map[string]string{"main.go": `
package main

import (
	"fmt"
	"os"
	"strings"

	"example.com/demo/internal/tally"
)

func main() {
	words := strings.Fields(os.Args[0])
	fmt.Println(tally.Count(words))
}
`},
	},
	{
		name: "python-import-in-the-stdlib-group", tools: []string{"python3"}, cmd: "python3 jobs.py", iterations: 1,
		files: map[string]string{"jobs.py": `
"""Priority helpers for the job queue.

Jobs are (priority, name) pairs.
"""
from __future__ import annotations

import functools
import os

__all__ = ["smallest", "workers"]


@functools.lru_cache(maxsize=None)
def workers() -> int:
    return os.cpu_count() or 1


def smallest(jobs: list[tuple[int, str]], n: int = 1) -> list[tuple[int, str]]:
    return heapq.nsmallest(n, jobs)


if __name__ == "__main__":
    print(smallest([(3, "c"), (1, "a"), (2, "b")]), workers())
`},
		want: map[string]string{"jobs.py": `
"""Priority helpers for the job queue.

Jobs are (priority, name) pairs.
"""
from __future__ import annotations

import functools
import heapq
import os

__all__ = ["smallest", "workers"]


@functools.lru_cache(maxsize=None)
def workers() -> int:
    return os.cpu_count() or 1


def smallest(jobs: list[tuple[int, str]], n: int = 1) -> list[tuple[int, str]]:
    return heapq.nsmallest(n, jobs)


if __name__ == "__main__":
    print(smallest([(3, "c"), (1, "a"), (2, "b")]), workers())
`},
	},
	{
		name: "python-colon-then-import", tools: []string{"python3"}, cmd: "python3 dump.py a b", iterations: 2,
		files: map[string]string{"dump.py": `
"""Print the arguments as JSON."""
import sys


def main(args)
    print(json.dumps(args))


main(sys.argv[1:])
`},
		want: map[string]string{"dump.py": `
"""Print the arguments as JSON."""
import json
import sys


def main(args):
    print(json.dumps(args))


main(sys.argv[1:])
`},
	},
	{
		name: "java-semicolon-then-import", tools: []string{"javac"}, cmd: "mkdir -p out && javac -d out src/demo/Main.java", iterations: 2,
		files: map[string]string{"src/demo/Main.java": `
package demo;

import java.util.ArrayList;

/** Prints the names given. */
public class Main {
    public static void main(String[] args) {
        List<String> names = new ArrayList<>()
        for (String a : args) {
            names.add(a);
        }
        System.out.println(names);
    }
}
`},
		want: map[string]string{"src/demo/Main.java": `
package demo;

import java.util.ArrayList;
import java.util.List;

/** Prints the names given. */
public class Main {
    public static void main(String[] args) {
        List<String> names = new ArrayList<>();
        for (String a : args) {
            names.add(a);
        }
        System.out.println(names);
    }
}
`},
	},
	{
		name: "rust-std-use", tools: []string{"cargo"}, cmd: "cargo build --quiet", iterations: 2,
		files: map[string]string{
			"Cargo.toml": "[package]\nname = \"words\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"src/main.rs": `
//! Counts the words of standard input.

use std::io::{self, Read};

fn main() {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text).unwrap();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in text.split_whitespace() {
        *counts.entry(w).or_insert(0) += 1;
    }
    let shared = Rc::new(counts);
    println!("{}", shared.len());
}
`,
		},
		want: map[string]string{"src/main.rs": `
//! Counts the words of standard input.

use std::collections::HashMap;
use std::io::{self, Read};
use std::rc::Rc;

fn main() {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text).unwrap();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in text.split_whitespace() {
        *counts.entry(w).or_insert(0) += 1;
    }
    let shared = Rc::new(counts);
    println!("{}", shared.len());
}
`},
	},
	{
		name: "node-esm-default-import-of-a-sibling", tools: []string{"node"}, cmd: "node src/main.js", iterations: 1,
		files: map[string]string{
			"package.json":  `{"name": "conf", "type": "module"}` + "\n",
			"src/format.js": "export function format(doc) {\n  return JSON.stringify(doc);\n}\n",
			"src/parse.js":  "export default function parse(text) {\n  const [k, v] = text.split('=');\n  return { [k]: v };\n}\n",
			"src/main.js": `
import { format } from './format.js';

const doc = parse('a=1');
console.log(format(doc));
`,
		},
		want: map[string]string{"src/main.js": `
import { format } from './format.js';
import parse from './parse.js';

const doc = parse('a=1');
console.log(format(doc));
`},
	},
	{
		name: "node-commonjs-require-of-a-sibling", tools: []string{"node"}, cmd: "node lib/main.js", iterations: 1,
		files: map[string]string{
			"lib/util/format.js": "module.exports = { format: (d) => JSON.stringify(d) };\n",
			"lib/parse.js":       "function parse(text) {\n  const [k, v] = text.split('=');\n  return { [k]: v };\n}\n\nmodule.exports = parse;\n",
			"lib/main.js": `
'use strict';

const { format } = require('./util/format');

console.log(format(parse('a=1')));
`,
		},
		want: map[string]string{"lib/main.js": `
'use strict';

const { format } = require('./util/format');
const parse = require('./parse');

console.log(format(parse('a=1')));
`},
	},
	// V8 names the token after a missing comma ("Unexpected identifier"),
	// one line below the slip: the comma goes at the end of the line
	// before, and node's own parser says the file then parses.
	{
		name: "js-missing-comma-in-object", tools: []string{"node"}, cmd: "node --test", iterations: 1,
		files: map[string]string{
			"package.json": `{"name": "cfg", "version": "1.0.0"}` + "\n",
			"config.js": `'use strict';

const defaults = {
  host: 'localhost',
  port: 8080
  retries: 3,
};

module.exports = { defaults };
`,
			"config.test.js": `const test = require('node:test');
const assert = require('node:assert');
const { defaults } = require('./config.js');

test('defaults', () => {
  assert.strictEqual(defaults.retries, 3);
});
`,
		},
		want: map[string]string{"config.js": `'use strict';

const defaults = {
  host: 'localhost',
  port: 8080,
  retries: 3,
};

module.exports = { defaults };
`},
	},
	{
		name: "js-missing-paren-in-call", tools: []string{"node"}, cmd: "node --test", iterations: 1,
		files: map[string]string{
			"package.json": `{"name": "sum", "version": "1.0.0"}` + "\n",
			"sum.js": `function total(xs) {
  return xs.reduce((a, b) => a + b, 0;
}

module.exports = { total };
`,
			"sum.test.js": `const test = require('node:test');
const assert = require('node:assert');
const { total } = require('./sum.js');

test('total', () => {
  assert.strictEqual(total([1, 2, 3]), 6);
});
`,
		},
		want: map[string]string{"sum.js": `function total(xs) {
  return xs.reduce((a, b) => a + b, 0);
}

module.exports = { total };
`},
	},
}
