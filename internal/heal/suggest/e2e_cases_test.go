package suggest_test

// cases are the broken projects of TestHealEndToEnd: one per suggestion
// source of the suggest tier and per new rule of the rules tier. Each
// slip is the kind a person makes; the fix must come from the tool's
// documented behaviour, not from knowing the project.
var cases = []healCase{
	// ---- the suggest tier ----
	{
		name: "rust-json-suggestions", tools: []string{"cargo"}, cmd: "cargo build --quiet",
		files: map[string]string{
			"Cargo.toml": "[package]\nname = \"tally\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
			".gitignore": "/target\n",
			"src/main.rs": `/// Counts words.
fn count(words: &[&str]) -> usize {
    words.len()
}

fn main() {
    let words = vec!["a", "b", "a"];
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for w in &words {
        *seen.entry(w).or_insert(0) += 1;
    }
    println!("{} {}", count(&wrods), seen.len());
}
`,
		},
		// The missing use is the rules tier's (its table of std items); the
		// misspelt local is rustc's suggestion, two lines further down.
		want:     []string{"rules: TYPE_ERROR error in src/main.rs line 8 → Fix: add the missing use std::collections::HashMap;", "rustc's suggestion for line 14 (a local variable with a similar name exists): replace `wrods` with `words`"},
		maxLines: 5,
	},
	{
		name: "rust-cargo-workspace-member", tools: []string{"cargo"}, cmd: "cargo build --quiet",
		files: map[string]string{
			"Cargo.toml":             "[workspace]\nmembers = [\"crates/core\"]\nresolver = \"2\"\n",
			".gitignore":             "/target\n",
			"crates/core/Cargo.toml": "[package]\nname = \"core2\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			"crates/core/src/lib.rs": "/// Adds the values and their count.\npub fn total(xs: &[i32]) -> i32 {\n    let count = xs.len() as i32;\n    xs.iter().sum::<i32>() + cuont\n}\n",
		},
		want:     []string{"suggest: TYPE_ERROR error in crates/core/src/lib.rs line 4 → Fix: rustc's suggestion for line 4 (a local variable with a similar name exists): replace `cuont` with `count`"},
		maxLines: 2,
	},
	{
		name: "rust-unused-machine-applicable", tools: []string{"cargo"}, cmd: "cargo build --quiet",
		files: map[string]string{
			"Cargo.toml": "[package]\nname = \"lint\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			".gitignore": "/target\n",
			"src/main.rs": `#![deny(unused)]
use std::collections::HashMap;
use std::fmt;

fn main() {
    let unused_total = 3;
    let m: HashMap<i32, i32> = HashMap::new();
    println!("{}", m.len());
}
`,
		},
		want: []string{"suggest: IMPORT error in src/main.rs line 3 → Fix: rustc's suggestion for line 3 (remove the whole `use` item): remove `use std::fmt;`",
			"if this is intentional, prefix it with an underscore): replace `unused_total` with `_unused_total`"},
		maxLines: 3,
	},
	{
		name: "c-fixit", tools: []string{"cc"}, cmd: "cc -Wall -o /dev/null stats.c",
		files: map[string]string{
			"stats.c": `#include <stdio.h>

/* Sums n values. */
static int sum(const int *xs, int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
        total += xs[i];
    }
    return totl;
}

int main(void) {
    int xs[] = {1, 2, 3};
    printf("%d\n", sum(xs, 3));
    return 0;
}
`,
		},
		want:     []string{"suggest: TYPE_ERROR error in stats.c line 9 → Fix: cc's suggestion for line 9: replace `totl` with `total`"},
		maxLines: 2,
	},
	{
		name: "c-fixit-with-make-and-headers", tools: []string{"cc", "make"}, cmd: "make",
		files: map[string]string{
			".gitignore":     "app\n",
			"Makefile":       "app: src/main.c src/area.c include/area.h\n\tcc -Wall -Iinclude -o app src/main.c src/area.c\n",
			"include/area.h": "#ifndef AREA_H\n#define AREA_H\n\nstruct rect { int width; int height; };\n\nint area(struct rect r);\n\n#endif\n",
			"src/area.c":     "#include \"area.h\"\n\nint area(struct rect r) { return r.width * r.height; }\n",
			"src/main.c": `#include <stdio.h>
#include "area.h"

int main(void) {
    struct rect r = {2, 3};
    printf("%d\n", area(r) + r.widht);
    return 0;
}
`,
		},
		want:     []string{"suggest: TYPE_ERROR error in src/main.c line 6 → Fix: cc's suggestion for line 6: replace `widht` with `width`"},
		maxLines: 2,
	},
	{
		// The one-file re-run does not have the header the build generates
		// (in build/, with -Ibuild) and stops at the #include, so the fix
		// comes from gcc's "did you mean" in the build's own text.
		name: "c-did-you-mean-text", tools: []string{"cc", "make"}, cmd: "make",
		files: map[string]string{
			".gitignore": "app\nbuild/\n",
			"Makefile":   "app: main.c\n\tmkdir -p build && echo '#define LIMIT 3' > build/config.h\n\tcc -Ibuild -o app main.c\n",
			"main.c": `#include <stdio.h>
#include "config.h"

int main(void) {
    int counter = LIMIT;
    printf("%d\n", countr);
    return 0;
}
`,
		},
		want:     []string{"suggest: TYPE_ERROR error in main.c line 6 → Fix: cc's \"did you mean\" for line 6: replace `countr` with `counter`"},
		maxLines: 2,
	},
	{
		name: "cpp-include-fixit", tools: []string{"c++"}, cmd: "c++ -o /dev/null main.cpp",
		files: map[string]string{
			"main.cpp": `#include <vector>

// Prints the sum of a few values.
int main() {
    std::vector<int> values = {1, 2, 3};
    int total = 0;
    for (int v : values) {
        total += v;
    }
    std::cout << total << "\n";
    return 0;
}
`,
		},
		want:     []string{"suggest: TYPE_ERROR error in main.cpp line 10 → Fix: cc's suggestion for line 10: insert `#include <iostream>`"},
		maxLines: 1,
	},
	{
		name: "python-did-you-mean", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"app.py": `"""Prints a mean."""


def mean(values):
    total = sum(values)
    return totl / len(values)


print(mean([1, 2, 3]))
`,
		},
		want:     []string{`suggest: TYPE_ERROR error in app.py line 6 → Fix: python's "did you mean" for line 6: replace ` + "`totl` with `total`"},
		maxLines: 2,
	},
	{
		name: "python-two-misspellings-one-line", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"app.py": "def report(values):\n    total = sum(values)\n    count = len(values)\n    print(\"mean\", totl / cuont)\n\n\nreport([1, 2])\n",
		},
		want:     []string{"replace `totl` with `total`", "replace `cuont` with `count`"},
		maxLines: 2,
	},
	{
		name: "python-nearest-attribute", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"app.py": `class User:
    """A named user."""

    def __init__(self, name):
        self.name = name

    def greet(self):
        return "hi " + self.nmae


print(User("ann").greet())
`,
		},
		want:     []string{"suggest: TYPE_ERROR error in app.py line 8 → Fix: the nearest name in scope for line 8 (edit distance 1): replace `self.nmae` with `self.name`"},
		maxLines: 2,
	},
	{
		name: "python-nearest-import-name", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"shapes.py": "PI = 3.14159\n\n\ndef circle_area(r):\n    return PI * r * r\n",
			"app.py":    "from shapes import circle_aera\n\nprint(round(circle_aera(2), 2))\n",
		},
		want:     []string{"suggest: IMPORT error in app.py line 1 → Fix: the nearest name in scope for line 1 (edit distance 1): replace `circle_aera` with `circle_area`"},
		maxLines: 4,
	},
	{
		name: "node-nearest-name", tools: []string{"node"}, cmd: "node app.js",
		files: map[string]string{
			"app.js": "'use strict';\n\nconst paths = ['a', 'b'];\n// how many\nconsole.log(path.length);\n",
		},
		want:     []string{"suggest: TYPE_ERROR error in app.js line 5 → Fix: the nearest name in scope for line 5 (edit distance 1): replace `path` with `paths`"},
		maxLines: 2,
	},
	{
		name: "go-nearest-name", tools: []string{"go"}, cmd: "go build ./...",
		files: map[string]string{
			"go.mod": "module example.com/tally\n\ngo 1.21\n",
			"main.go": `package main

import "fmt"

func main() {
	words := []string{"a", "b"}
	fmt.Println(len(wrods), limit)
}
`,
			"limit.go": "package main\n\nconst limit = 3\n",
		},
		want:     []string{"suggest: TYPE_ERROR error in main.go line 7 → Fix: the nearest name in scope for line 7 (edit distance 1): replace `wrods` with `words`"},
		maxLines: 2,
	},
	{
		name: "go-package-member-and-method-hint", tools: []string{"go"}, cmd: "go vet ./...",
		files: map[string]string{
			"go.mod": "module example.com/greet\n\ngo 1.21\n",
			"main.go": `package main

import (
	"fmt"
	"strings"
)

type greeter struct{ name string }

// Hello greets by name.
func (g greeter) Hello() string { return "hello " + g.name }

func main() {
	g := greeter{"ann"}
	fmt.Prinln(strings.ToUpper(g.hello()))
}
`,
		},
		want: []string{"suggest: TYPE_ERROR error in main.go line 15 → Fix: go's \"did you mean\" for line 15: replace `hello` with `Hello`",
			"the nearest name in scope for line 15 (edit distance 1): replace `fmt.Prinln` with `fmt.Println`"},
		maxLines: 4,
	},
	{
		name: "java-nearest-name", tools: []string{"javac"}, cmd: "mkdir -p out && javac -d out src/demo/Main.java",
		files: map[string]string{
			".gitignore": "out/\n",
			"src/demo/Main.java": `package demo;

import java.util.ArrayList;
import java.util.List;

public class Main {
    private final List<String> names = new ArrayList<>();

    int count() {
        return nmes.size();
    }

    public static void main(String[] args) {
        System.out.println(new Main().count());
    }
}
`,
		},
		want:     []string{"suggest: TYPE_ERROR error in src/demo/Main.java line 10 → Fix: the nearest name in scope for line 10 (edit distance 1): replace `nmes` with `names`"},
		maxLines: 2,
	},
	{
		name: "tsc-did-you-mean", tools: []string{"tsc"}, cmd: "tsc -p .",
		files: map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "es2020", "noEmit": true}, "include": ["src"]}` + "\n",
			"src/main.ts": `interface Point { x: number; y: number }

export function norm(p: Point): number {
  const scale = 2;
  return Math.sqrt(p.x * p.x + p.y * p.y) * scal;
}
`,
		},
		want:     []string{`suggest: TYPE_ERROR error in src/main.ts line 5 → Fix: tsc's "did you mean" for line 5: replace ` + "`scal` with `scale`"},
		maxLines: 2,
	},
	{
		name: "eslint-fix-objects", tools: []string{"eslint"}, cmd: "eslint app.js", fixers: "suggest",
		files: map[string]string{
			"eslint.config.js": "module.exports = [{ rules: { semi: \"error\", \"no-var\": \"error\" } }];\n",
			"app.js": `let total = 0
var items = [1, 2, 3];
for (const i of items) total += i;
console.log(total);
`,
		},
		want:     []string{"suggest: LINTING error in app.js line 1 → Fix: eslint's suggestion for line 1: insert `;`"},
		maxLines: 4,
	},

	// ---- the rules tier ----
	{
		name: "python-missing-stdlib-import", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"app.py": `"""Prints the working directory."""
import sys


def main():
    print(os.getcwd(), len(sys.argv))


main()
`,
		},
		want:     []string{"rules: TYPE_ERROR error in app.py line 6 → Fix: add the missing import os"},
		maxLines: 1,
	},
	{
		name: "python-missing-project-import", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"helpers.py": "def double(x):\n    return 2 * x\n",
			"app.py":     "import sys\n\n\nprint(helpers.double(len(sys.argv)))\n",
		},
		// The project's own module is a group of its own, after the
		// standard library's, set off by a blank line.
		want:     []string{"rules: TYPE_ERROR error in app.py line 4 → Fix: add the missing import helpers"},
		maxLines: 2,
	},
	{
		name: "python-unused-import-and-variable", tools: []string{"flake8", "python3"}, cmd: "flake8 app.py && python3 app.py",
		files: map[string]string{
			"app.py": "import os\nimport sys\n\n\ndef main():\n    unused = 3\n    print(len(sys.argv))\n\n\nmain()\n",
		},
		want:     []string{"rules: IMPORT error in app.py line 1 → Fix: remove unused import os", "remove unused variable unused"},
		maxLines: 2,
	},
	{
		name: "python-missing-from-import", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"helpers.py": "def double(x):\n    return 2 * x\n",
			"app.py":     "\"\"\"Doubles the argument count.\"\"\"\nimport sys\n\nprint(double(len(sys.argv)))\n",
		},
		// The project's own import is a group of its own, after the
		// standard library's, set off by a blank line.
		want:     []string{"rules: TYPE_ERROR error in app.py line 4 → Fix: add the missing from helpers import double"},
		maxLines: 2,
	},
	{
		name: "tsc-missing-sibling-import", tools: []string{"tsc"}, cmd: "tsc -p .",
		files: map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", "noEmit": true}, "include": ["src"]}` + "\n",
			"src/text.ts":   "export function slug(s: string): string {\n  return s.toLowerCase().replace(/ /g, \"-\");\n}\n",
			"src/main.ts":   "export const title = slug(\"Hello World\");\n",
		},
		want:     []string{"rules: TYPE_ERROR error in src/main.ts line 1 → Fix: add the missing import { slug } from \"./text\";"},
		maxLines: 2,
	},
	{
		name: "python-tab-counted-to-8", tools: []string{"python3"}, cmd: "python3 app.py",
		files: map[string]string{
			"app.py": "def total(xs):\n    t = 0\n    for x in xs:\n\tt += x  # a tab: column 8 for Python\n    return t\n\n\nprint(total([1, 2]))\n",
		},
		want:     []string{"rules: INDENTATION error in app.py line 4 → Fix: indent line 4 with spaces instead of tabs"},
		maxLines: 2,
	},
	{
		name: "java-missing-jdk-import", tools: []string{"javac"}, cmd: "mkdir -p out && javac -d out src/demo/Main.java",
		files: map[string]string{
			".gitignore": "out/\n",
			"src/demo/Main.java": `package demo;

import java.util.List;

public class Main {
    // Keeps the names in order.
    static List<String> names() {
        List<String> out = new ArrayList<>();
        out.add("a");
        return out;
    }

    public static void main(String[] args) {
        System.out.println(names());
    }
}
`,
		},
		want:     []string{"rules: TYPE_ERROR error in src/demo/Main.java line 8 → Fix: add the missing import java.util.ArrayList;"},
		maxLines: 1,
	},
	{
		name: "java-missing-project-import", tools: []string{"javac"}, cmd: "mkdir -p out && javac -d out -sourcepath src src/demo/app/Main.java",
		files: map[string]string{
			".gitignore":              "out/\n",
			"src/demo/util/Text.java": "package demo.util;\n\npublic final class Text {\n    public static String shout(String s) {\n        return s.toUpperCase();\n    }\n}\n",
			"src/demo/app/Main.java":  "package demo.app;\n\npublic class Main {\n    public static void main(String[] args) {\n        System.out.println(Text.shout(\"hi\"));\n    }\n}\n",
		},
		want:     []string{"rules: TYPE_ERROR error in src/demo/app/Main.java line 5 → Fix: add the missing import demo.util.Text;"},
		maxLines: 2,
	},
	{
		name: "node-missing-builtin", tools: []string{"node"}, cmd: "node app.js",
		files: map[string]string{
			"app.js": "'use strict';\n\nconst here = path.basename(__filename);\nconsole.log(here);\n",
		},
		want:     []string{"rules: TYPE_ERROR error in app.js line 3 → Fix: add the missing const path = require('node:path');"},
		maxLines: 1,
	},
	{
		name: "node-missing-sibling-export", tools: []string{"node"}, cmd: "node main.mjs",
		files: map[string]string{
			"format.mjs": "export function shout(s) {\n  return s.toUpperCase();\n}\n",
			"main.mjs":   "import { strict as assert } from 'node:assert';\n\nassert.equal(shout('a'), 'A');\nconsole.log('ok');\n",
		},
		want:     []string{"rules: TYPE_ERROR error in main.mjs line 3 → Fix: add the missing import { shout } from './format.mjs';"},
		maxLines: 1,
	},
	{
		name: "rust-missing-semicolon", tools: []string{"cargo"}, cmd: "cargo build --quiet",
		files: map[string]string{
			"Cargo.toml":  "[package]\nname = \"semi\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
			".gitignore":  "/target\n",
			"src/main.rs": "fn main() {\n    let base = 4;\n    // twice the base\n    let twice = base * 2\n    println!(\"{}\", twice);\n}\n",
		},
		want:     []string{"rules: SYNTAX error in src/main.rs line 4 → Fix: add the missing ';' at the end of line 4"},
		maxLines: 2,
	},
	{
		name: "c-unused-variable", tools: []string{"cc"}, cmd: "cc -Wall -Werror -o /dev/null m.c",
		files: map[string]string{
			"m.c": "#include <stdio.h>\n\nint main(void) {\n    int count = 0;\n    printf(\"hi\\n\");\n    return 0;\n}\n",
		},
		want:     []string{"rules: LINTING error in m.c line 4 → Fix: remove unused variable count"},
		maxLines: 1,
	},
	{
		name: "eslint-unused-require", tools: []string{"eslint", "node"}, cmd: "eslint main.js && node main.js",
		files: map[string]string{
			"eslint.config.js": "module.exports = [{ languageOptions: { sourceType: \"commonjs\", globals: { require: \"readonly\", console: \"readonly\" } }, rules: { \"no-unused-vars\": \"error\" } }];\n",
			"main.js":          "const fs = require('fs');\nconst path = require('path');\n\nconsole.log(path.sep);\n",
		},
		want:     []string{"rules: LINTING error in main.js line 1 → Fix: remove unused import fs"},
		maxLines: 1,
	},
	{
		name: "tsc-unused-import", tools: []string{"tsc"}, cmd: "tsc -p .",
		files: map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "es2020", "noEmit": true, "noUnusedLocals": true}, "include": ["src"]}` + "\n",
			"src/util.ts":   "export const one = 1;\nexport const two = 2;\n",
			"src/main.ts":   "import { one, two } from \"./util\";\n\nexport const three = one + 2;\n",
		},
		want:     []string{"rules: IMPORT error in src/main.ts line 1 → Fix: remove unused import two"},
		maxLines: 2,
	},
}
