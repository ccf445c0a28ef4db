package integrity

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
)

const jsCheckTest = `import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "./setup.js";

import { add, parse } from "../src/calc.js";

const cases = [[1, 2, 3], [2, 2, 4]];

describe("add", () => {
  test("adds", async () => {
    const unused = 5;
    let spare;
    const width = cases.length * 2 + cases[0][1];
    const v = await parse("x");
    const label = "sum";
    const got = add(1, 2);
    assert.equal(got, 3, ` + "`${label} of 1 and 2`" + `);
    for (const [a, b, want] of cases) {
      assert.equal(add(a, b), want);
    }
    expect(got).toBe(3);
  });

  test.skip("later", () => {
    assert.ok(/^a+$/.test("aa"));
  });
});
`

// jsUnused is eslint's report of an unused name.
func jsUnused(name string) []contract.BugReport {
	return []contract.BugReport{{Message: "'" + name + "' is defined but never used. (no-unused-vars)"}}
}

func refErr(name string) []contract.BugReport {
	return []contract.BugReport{{Message: "ReferenceError: " + name + " is not defined"}}
}

// TestJSChecksKept: a JavaScript or TypeScript test file's edit is
// proven to keep its checks when it removes dead declarations, keeps an
// unused result's call, removes unused imports or adds one a report asks
// for; any change of a registration, a skip, an assertion, an expected
// value, a table, a comment, or of where a statement ends is no proof.
func TestJSChecksKept(t *testing.T) {
	src := jsCheckTest
	ed := func(s, old, new string) string { return pyEdit(t, s, old, new) }
	noPath := src + "test(\"joins\", () => assert.equal(path.join(\"a\"), \"a\"));\n"
	for _, tc := range []struct {
		name          string
		file          string
		orig, patched string
		reports       []contract.BugReport
		kept          bool
	}{
		{"unchanged", "", src, src, nil, false}, // nothing set aside changed: left to the other rules
		{"layout alone", "", src, src + "\n\n", nil, false},
		{"dead constant removed", "", src, ed(src, "    const unused = 5;\n", ""), nil, true},
		{"dead let removed", "", src, ed(src, "    let spare;\n", ""), nil, true},
		{"dead member arithmetic removed", "", src, ed(src, "    const width = cases.length * 2 + cases[0][1];\n", ""), nil, true},
		{"unused result's call kept", "", src, ed(src, `const v = await parse("x");`, `await parse("x");`), nil, true},
		{"unused import removed", "", src, ed(src, "import { readFileSync } from \"node:fs\";\n", ""), jsUnused("readFileSync"), true},
		{"unused import removed with no report naming it", "", src, ed(src, "import { readFileSync } from \"node:fs\";\n", ""), nil, false},
		{"unused name of an import removed", "", ed(src, "{ add, parse }", "{ add, mul, parse }"), src, jsUnused("mul"), true},
		{"import added for a name a report says is missing", "", noPath, ed(noPath, "import \"./setup.js\";\n", "import \"./setup.js\";\nimport path from \"node:path\";\n"), refErr("path"), true},
		{"require added for a name a report says is missing", "", noPath, ed(noPath, "import \"./setup.js\";\n", "import \"./setup.js\";\nconst path = require(\"node:path\");\n"), refErr("path"), true},
		{"import added with no report", "", noPath, ed(noPath, "import \"./setup.js\";\n", "import \"./setup.js\";\nimport path from \"node:path\";\n"), nil, false},
		{"expect imported from a helper", "", src, ed(src, "import \"./setup.js\";\n", "import \"./setup.js\";\nimport { expect } from \"./fake.js\";\n"), refErr("expect"), false},
		{"expect imported from its library", "", src, ed(src, "import \"./setup.js\";\n", "import \"./setup.js\";\nimport { expect } from \"vitest\";\n"), refErr("expect"), true},
		{"assertion library swapped", "", src, ed(src, `import assert from "node:assert/strict";`, `import assert from "./lenient.js";`), nil, false},
		{"effect import removed", "", src, ed(src, "import \"./setup.js\";\n", ""), nil, false},
		{"used import removed", "", src, ed(src, "import { add, parse } from \"../src/calc.js\";\n", "import { parse } from \"../src/calc.js\";\n"), nil, false},
		{"expected value changed", "", src, ed(src, "assert.equal(got, 3,", "assert.equal(got, 4,"), nil, false},
		{"assertion loosened", "", src, ed(src, "assert.equal(got, 3,", "assert.ok(got,"), nil, false},
		{"matcher changed", "", src, ed(src, "toBe(3)", "not.toBe(4)"), nil, false},
		{"assertion removed", "", src, ed(src, "    expect(got).toBe(3);\n", ""), nil, false},
		{"assertion message changed", "", src, ed(src, "of 1 and 2", "of 1"), nil, false},
		{"table row changed", "", src, ed(src, "[2, 2, 4]", "[2, 2, 5]"), nil, false},
		{"test renamed", "", src, ed(src, `test("adds"`, `test("sums"`), nil, false},
		{"skip added", "", src, ed(src, `test("adds"`, `test.skip("adds"`), nil, false},
		{"only added", "", src, ed(src, `test("adds"`, `test.only("adds"`), nil, false},
		{"skip removed", "", src, ed(src, `test.skip("later"`, `test("later"`), nil, false},
		{"comment added", "", src, ed(src, "    const unused = 5;\n", "    // @ts-ignore\n    const unused = 5;\n"), nil, false},
		{"live constant removed", "", src, ed(src, "    const got = add(1, 2);\n", ""), nil, false},
		{"constant read in a template removed", "", src, ed(src, "    const label = \"sum\";\n", ""), nil, false},
		{"unused result's call removed", "", src, ed(src, "    const v = await parse(\"x\");\n", ""), nil, false},
		{"early return added", "", src, ed(src, "    const unused = 5;\n", "    return;\n"), nil, false},
		{"regular expression changed", "", src, ed(src, "/^a+$/", "/a*/"), nil, false},
		{"a JSX file", "calc.test.jsx", src, ed(src, "    const unused = 5;\n", ""), nil, false},
		{"does not lex", "", src, ed(src, `parse("x")`, `parse("x)`), nil, false},
		{"typed dead constant removed", "calc.test.ts", "test(\"a\", () => {\n  const spare: Map<string, number[]> = new Map();\n  const n: number = 2;\n  assert.equal(f(), 1);\n});\n",
			"test(\"a\", () => {\n  new Map();\n  assert.equal(f(), 1);\n});\n", nil, true},
		{"type-only import removed", "calc.test.ts", "import type { Calc } from \"./calc\";\ntest(\"a\", () => assert.ok(1));\n",
			"test(\"a\", () => assert.ok(1));\n", []contract.BugReport{{Message: "'Calc' is declared but its value is never read."}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "test/calc.test.js"
			}
			if got := jsChecksKept(file, tc.orig, tc.patched, tc.reports); got != tc.kept {
				t.Errorf("jsChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestJSStatementsStayApart: without semicolons, a line break ends a
// statement only where no expression continues; a drop that would join
// two statements, or split one, is no proof.
func TestJSStatementsStayApart(t *testing.T) {
	const mod = "import assert from \"node:assert\";\n"
	for _, tc := range []struct {
		name, orig, patched string
		kept                bool
	}{
		{"dead line between statements", "const a = f()\nconst unused = 1\nassert.ok(a)\n", "const a = f()\nassert.ok(a)\n", true},
		{"the next line continues the value", "const a = f()\nconst unused = 1\n(g)()\nassert.ok(a)\n", "const a = f()\n(g)()\nassert.ok(a)\n", false},
		{"the drop would join two statements", "let a = b\nconst unused = 1;\n[1, 2].forEach(check)\nassert.ok(a)\n", "let a = b\n[1, 2].forEach(check)\nassert.ok(a)\n", false},
		{"the next line is a tagged template", "const a = f()\nconst unused = 1;\n`x`\nassert.ok(a)\n", "const a = f()\n`x`\nassert.ok(a)\n", false},
		{"a directive follows", "function t() {\n  const unused = 1\n  \"use strict\"\n  assert.ok(1)\n}\n", "function t() {\n  \"use strict\"\n  assert.ok(1)\n}\n", false},
		{"line breaks moved", "assert.ok(a); assert.ok(b)\n", "assert.ok(a);\nassert.ok(b)\n", false},
		{"a read by eval", "test(\"a\", () => {\n  const n = 1\n  assert.ok(eval(code))\n})\n", "test(\"a\", () => {\n  assert.ok(eval(code))\n})\n", false},
		{"a check by reading", "test(\"a\", () => {\n  const r = res.should.be.ok\n})\n", "test(\"a\", () => {\n})\n", false},
		{"a name its block reads", "test(\"a\", () => {\n  const n = 1\n  { assert.ok(n) }\n})\n", "test(\"a\", () => {\n  { assert.ok(n) }\n})\n", false},
		{"var is function-scoped", "function t() {\n  var n = 1\n  assert.ok(1)\n}\n", "function t() {\n  assert.ok(1)\n}\n", false},
		{"a getter's object is not a value", "test(\"a\", () => {\n  const o = { get x() { return check() } }\n})\n", "test(\"a\", () => {\n})\n", false},
		{"an assignment in the value", "test(\"a\", () => {\n  let m\n  const n = m = 1\n  assert.ok(m)\n})\n", "test(\"a\", () => {\n  let m\n  assert.ok(m)\n})\n", false},
		{"a spread iterates", "test(\"a\", () => {\n  const n = [...gen]\n})\n", "test(\"a\", () => {\n})\n", false},
		{"a script's top-level name", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, patched := mod+tc.orig, mod+tc.patched
			if tc.orig == "" { // no import: the other scripts share its top level
				orig, patched = "const unused = 1\nassert.ok(1)\n", "assert.ok(1)\n"
			}
			if got := jsChecksKept("a.test.js", orig, patched, nil); got != tc.kept {
				t.Errorf("jsChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestLex: each lexer reads what its language's own tokenizer reads
// (Python's strings of every prefix, f-strings with nested quotes,
// continuations and blocks; JavaScript's templates with substitutions,
// regular expressions, comments and private names) and refuses what it
// cannot read.
func TestLex(t *testing.T) {
	py, js := lang.TokensPython, lang.TokensJS
	for _, tc := range []struct {
		name string
		lex  func(string) (lexed, bool)
		src  string
		ok   bool
		toks int
	}{
		{"python blocks", py, "def f():\n    if x:\n        return 1\n    return 2\n", true, 20},
		{"python strings", py, "x = rb'a\\'' + F\"{y['k']!r:>{w}}\" + '''a\nb'''\n", true, 8},
		{"python nested quotes", py, "x = f\"{d[\"k\"]}\"\n", true, 4},
		{"python continuation", py, "x = 1 + \\\n    2\n", true, 6},
		{"python brackets span lines", py, "x = [\n  1,\n]\n", true, 7},
		{"python comments", py, "# a\nx = 1  # b\n", true, 4},
		{"python unterminated string", py, "x = 'a\n", false, 0},
		{"python unbalanced", py, "x = (1\n", false, 0},
		{"python bad dedent", py, "if x:\n    y\n  z\n", false, 0},
		{"python stray byte", py, "x = 1 $ 2\n", false, 0},
		{"js template with nested template", js, "x = `a${`b${c}`}d`;", true, 4},
		{"js regular expression after an operator", js, "x = /a[/]b/g.test(y) / 2;", true, 11},
		{"js division after a word", js, "x = a / b / c;", true, 8},
		{"js comments", js, "// a\nx = 1; /* b\n */ y = 2;", true, 8},
		{"js private name", js, "this.#n = 1;", true, 6},
		{"js unterminated string", js, "x = 'a\n';", false, 0},
		{"js unterminated comment", js, "x = 1; /* a", false, 0},
		{"js unbalanced", js, "f(a];", false, 0},
		{"js stray byte", js, "x = 1 \\ 2;", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lx, ok := tc.lex(tc.src)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%v)", ok, tc.ok, lx.Toks)
			}
			if ok && len(lx.Toks) != tc.toks {
				t.Errorf("read %d tokens, want %d: %v", len(lx.Toks), tc.toks, lx.Toks)
			}
		})
	}
}

// TestCheckJSTestFile: through Check, a JavaScript test file's edit the
// proof holds for breaks no rule; one that weakens a check still breaks
// test-file and the rule of what it weakens.
func TestCheckJSTestFile(t *testing.T) {
	path := "test/calc.test.js"
	kept := Check(Input{Path: path, Original: jsCheckTest, Patched: pyEdit(t, jsCheckTest, "    const unused = 5;\n", ""),
		Reports: []contract.BugReport{{FilePath: path, LineNumber: 12, Message: "'unused' is assigned a value but never used"}}})
	if len(kept) != 0 {
		t.Errorf("a dead declaration's removal breaks %v", kept)
	}
	weak := Check(Input{Path: path, Original: jsCheckTest, Patched: pyEdit(t, jsCheckTest, `test("adds"`, `test.skip("adds"`)})
	if !hasRule(weak, RuleTestFile) || !hasRule(weak, RuleTestSkipped) {
		t.Errorf("a skip added breaks %v, want test-file and test-skipped", weak)
	}
}

func FuzzJSChecksKept(f *testing.F) {
	f.Add(jsCheckTest, strings.Replace(jsCheckTest, "    const unused = 5;\n", "", 1))
	f.Add("x = `${`${a}`}`\nconst y = /[/]/\n", "x = 1")
	f.Add("const a = b\n(c)", "const a = b")
	f.Fuzz(func(t *testing.T, a, b string) {
		if jsChecksKept("a.test.ts", a, b, nil) {
			if _, ok := lang.TokensJS(a); !ok {
				t.Fatal("a proof from a text the lexer refuses")
			}
		}
	})
}
