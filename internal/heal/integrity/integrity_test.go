package integrity

import (
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// tc is one row: a fix and the rules it must break (none: it passes).
type tc struct {
	rule    string // the rule the row exercises
	name    string
	path    string
	orig    string
	patched string
	want    []string
	allow   bool
	msg     string // a report message
	line    int    // the report's line, 1 when zero
	anyTier bool   // the fix is not the history tier's (no RenamesFromCommit)
	tests   []TestSource
}

// edit returns orig with old replaced by new once.
func edit(orig, old, new string) string { return strings.Replace(orig, old, new, 1) }

const goTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	got := Add(1, 2)
	if got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
	assert.Equal(t, 3, got)
}

func TestTable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a", "A"},
		{"b", "B"},
	} {
		if got := Up(c.in); got != c.want {
			t.Fatalf("Up(%q) = %q", c.in, got)
		}
	}
}
`

const goSrc = `package calc

// Add adds.
func Add(a, b int) int {
	return a - b
}

func ExampleAdd() {
	fmt.Println(Add(1, 2))
	// Output: 3
}
`

const pyTest = `import pytest

from calc import add


def test_add():
    assert add(1, 2) == 3
    assert add(0, 0) == 0


@pytest.mark.parametrize("a,b,want", [
    (1, 1, 2),
    (2, 2, 4),
])
def test_many(a, b, want):
    assert add(a, b) == want


class TestCalc:
    def test_neg(self):
        self.assertEqual(add(-1, -1), -2)
`

const pySrc = `def add(a, b):
    return a - b


def helper(x):
    return x + 1
`

const rsSrc = `pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn zero() {
        assert_eq!(add(0, 0), 0);
    }
}
`

const jsTest = `import { add } from './calc.js';

describe('add', () => {
  it('adds', () => {
    expect(add(1, 2)).toBe(3);
  });

  it('zero', () => {
    expect(add(0, 0)).toBe(0);
  });
});
`

const javaTest = `package calc;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CalcTest {
    @Test
    void adds() {
        assertEquals(3, Calc.add(1, 2));
    }

    @Test
    void zero() {
        assertEquals(0, Calc.add(0, 0));
    }
}
`

const cSrc = `#include <assert.h>

int add(int a, int b) {
    assert(a >= 0);
    return a - b;
}
`

const rbSpec = `require 'calc'

describe Calc do
  it 'adds' do
    expect(Calc.add(1, 2)).to eq(3)
  end
end
`

const phpTest = `<?php
use PHPUnit\Framework\TestCase;

class CalcTest extends TestCase
{
    public function testAdd(): void
    {
        $this->assertSame(3, add(1, 2));
    }
}
`

var cases = []tc{
	// Paths.
	{rule: RuleTestFile, name: "go test file", path: "calc/calc_test.go", orig: goTest, patched: edit(goTest, "got := Add(1, 2)", "got := Add(1, 2) // sum"), want: []string{RuleTestFile}},
	// Neutral edits of a test file: formatting, a printf verb go vet
	// reported, the signature go test asks for. The other rules still apply.
	{rule: RuleTestFile, name: "go test file formatted", path: "calc/calc_test.go", orig: edit(goTest, "\tgot := Add(1, 2)", "    got:=Add(1,2)"), patched: goTest},
	{rule: RuleTestFile, name: "go test file comment added", path: "calc/calc_test.go", orig: goTest, patched: edit(goTest, "\tgot := Add(1, 2)", "\t// sum\n\tgot := Add(1, 2)"), want: []string{RuleTestFile}},
	{rule: RuleTestFile, name: "printf verb vet reported", path: "calc/calc_test.go", line: 8, msg: "(*testing.common).Errorf format %d has arg got of wrong type string",
		orig: goTest, patched: edit(goTest, "= %d, want 3", "= %v, want 3")},
	{rule: RuleTestFile, name: "printf verb not reported", path: "calc/calc_test.go", line: 8, msg: "calc_test.go:8: Add(1, 2) = 4, want 3",
		orig: goTest, patched: edit(goTest, "= %d, want 3", "= %v, want 3"), want: []string{RuleTestFile, RuleExpectedValueChanged}},
	{rule: RuleTestFile, name: "printf verb and expected value", path: "calc/calc_test.go", line: 8, msg: "(*testing.common).Errorf format %d has arg got of wrong type string",
		orig: goTest, patched: edit(edit(goTest, "= %d, want 3", "= %v, want 4"), "got != 3", "got != 4"), want: []string{RuleTestFile, RuleExpectedValueChanged}},
	{rule: RuleTestFile, name: "signature go test asks for", path: "calc/calc_test.go", line: 5, msg: "wrong signature for TestAdd, must be: func TestAdd(t *testing.T)",
		orig: edit(goTest, "func TestAdd(t *testing.T) {", "func TestAdd(t *testing.T, n int) {"), patched: goTest},
	{rule: RuleTestFile, name: "identifier the compiler reports undefined renamed", path: "calc/calc_test.go", line: 6, msg: "undefined: Sum",
		orig: edit(goTest, "got := Add(1, 2)", "got := Sum(1, 2)"), patched: goTest},
	{rule: RuleTestFile, name: "example vet reports renamed", path: "calc/example_test.go", line: 5, msg: "ExampleSum refers to unknown identifier: Sum",
		orig: edit(goTest, "func TestAdd(t *testing.T) {", "func ExampleSum() {"), patched: edit(goTest, "func TestAdd(t *testing.T) {", "func ExampleAdd() {")},
	{rule: RuleTestFile, name: "undefined identifier renamed to nil", path: "calc/calc_test.go", line: 7, msg: "undefined: three",
		orig: edit(goTest, "if got != 3 {", "if got != three {"), patched: edit(goTest, "if got != 3 {", "if got != nil {"), want: []string{RuleTestFile, RuleAssertionLoosened}},
	{rule: RuleTestFile, name: "undefined identifier renamed by a tier without the commit's evidence", path: "calc/calc_test.go", line: 6, msg: "undefined: Sum",
		orig: edit(goTest, "got := Add(1, 2)", "got := Sum(1, 2)"), patched: goTest, anyTier: true, want: []string{RuleTestFile}},
	{rule: RuleTestFile, name: "a field a report says is missing is no name to rename", path: "calc/calc_test.go", line: 6, msg: "missing field `Sum` in initializer of `Calc`",
		orig: edit(goTest, "got := Add(1, 2)", "got := Sum(1, 2)"), patched: goTest, want: []string{RuleTestFile}},
	{rule: RuleTestFile, name: "unreported identifier renamed", path: "calc/calc_test.go", line: 6, msg: "undefined: Sum",
		orig: goTest, patched: edit(goTest, "got := Add(1, 2)", "got := Sub(1, 2)"), want: []string{RuleTestFile}},
	{rule: RuleTestFile, name: "rename and more on the reported line", path: "calc/calc_test.go", line: 6, msg: "undefined: Sum",
		orig: edit(goTest, "got := Add(1, 2)", "got := Sum(1, 2)"), patched: edit(goTest, "got := Add(1, 2)", "got := Add(1, 3)"), want: []string{RuleTestFile, RuleExpectedValueChanged}},
	{rule: RuleTestFile, name: "python test file", path: "tests/test_calc.py", orig: pyTest, patched: pyTest + "\n", want: []string{RuleTestFile}},
	{rule: RuleTestFile, name: "test edits allowed", path: "calc/calc_test.go", orig: goTest, patched: edit(goTest, "got := Add(1, 2)", "got := Add(1, 2) // sum"), allow: true},
	{rule: RuleTestFile, name: "source file", path: "calc/calc.go", orig: goSrc, patched: edit(goSrc, "a - b", "a + b")},
	{rule: RuleTestConfig, name: "pytest.ini", path: "pytest.ini", orig: "[pytest]\naddopts = -q\n", patched: "[pytest]\naddopts = -q -k 'not slow'\n", want: []string{RuleTestConfig}},
	{rule: RuleTestConfig, name: "jest config allowed", path: "jest.config.js", orig: "module.exports = {};\n", patched: "module.exports = { verbose: true };\n", allow: true},
	{rule: RuleTestConfig, name: "pyproject pytest section", path: "pyproject.toml", orig: "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n", patched: "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\naddopts = \"-q --deselect t\"\n", want: []string{RuleTestConfig}},
	{rule: RuleTestConfig, name: "pyproject packaging section", path: "pyproject.toml", orig: "[project]\nname = \"x\"\ndependencies = [\"a\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n", patched: "[project]\nname = \"x\"\ndependencies = [\"a\", \"b\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n"},
	{rule: RuleCIConfig, name: "workflow", path: ".github/workflows/ci.yml", orig: "jobs:\n  test:\n    run: go test ./...\n", patched: "jobs:\n  test:\n    run: go test ./... || true\n", want: []string{RuleCIConfig}},
	{rule: RuleCIConfig, name: "golangci even with test edits", path: ".golangci.yml", orig: "linters:\n  enable: [errcheck]\n", patched: "linters:\n  enable: []\n", allow: true, want: []string{RuleCIConfig}},
	{rule: RuleCIConfig, name: "package.json test script", path: "package.json", orig: `{"name":"x","scripts":{"test":"jest","build":"tsc"}}`, patched: `{"name":"x","scripts":{"test":"echo ok","build":"tsc"}}`, want: []string{RuleCIConfig}},
	{rule: RuleCIConfig, name: "package.json build script", path: "package.json", orig: `{"name":"x","scripts":{"test":"jest","build":"tsc"}}`, patched: `{"name":"x","scripts":{"test":"jest","build":"tsc -p ."}}`},
	{rule: RuleCIConfig, name: "Cargo lints section", path: "Cargo.toml", orig: "[package]\nname = \"x\"\n\n[lints.rust]\nunsafe_code = \"forbid\"\n", patched: "[package]\nname = \"x\"\n\n[lints.rust]\nunsafe_code = \"allow\"\n", want: []string{RuleCIConfig}},

	// Assertions removed.
	{rule: RuleAssertionRemoved, name: "go testify line deleted", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "\tassert.Equal(t, 3, got)\n", ""), want: []string{RuleAssertionRemoved}},
	{rule: RuleAssertionRemoved, name: "go guarded Errorf deleted", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "\tif got != 3 {\n\t\tt.Errorf(\"Add(1, 2) = %d, want 3\", got)\n\t}\n", ""), want: []string{RuleAssertionRemoved}},
	{rule: RuleAssertionRemoved, name: "python assert commented out", path: "tests/test_calc.py", allow: true, orig: pyTest, patched: edit(pyTest, "    assert add(0, 0) == 0", "    # assert add(0, 0) == 0"), want: []string{RuleAssertionRemoved}},
	{rule: RuleAssertionRemoved, name: "rust assert in cfg(test) of src", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "        assert_eq!(add(0, 0), 0);\n", ""), want: []string{RuleAssertionRemoved}},
	{rule: RuleAssertionRemoved, name: "c assert in source", path: "src/calc.c", orig: cSrc, patched: edit(cSrc, "    assert(a >= 0);\n", ""), want: []string{RuleAssertionRemoved}},
	{rule: RuleAssertionRemoved, name: "js expect in block comment", path: "src/calc.test.js", allow: true, orig: jsTest, patched: edit(jsTest, "    expect(add(0, 0)).toBe(0);", "    /* expect(add(0, 0)).toBe(0); */"), want: []string{RuleAssertionRemoved}},
	{rule: RuleAssertionRemoved, name: "moved assertion is kept", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(edit(goTest, "\tassert.Equal(t, 3, got)\n", ""), "\tgot := Add(1, 2)\n", "\tgot := Add(1, 2)\n\tassert.Equal(t, 3, got)\n")},
	{rule: RuleAssertionRemoved, name: "assertion text in a string", path: "src/calc.c", orig: cSrc + "const char *m = \"assert(x)\";\n", patched: cSrc},

	// Assertions loosened.
	{rule: RuleAssertionLoosened, name: "rust assert_eq to assert", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "assert_eq!(add(1, 2), 3);", "assert!(add(1, 2) > 0);"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "testify Equal to NotNil", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "assert.Equal(t, 3, got)", "assert.NotNil(t, got)"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "jest toBe to toBeDefined", path: "src/calc.test.js", allow: true, orig: jsTest, patched: edit(jsTest, "expect(add(1, 2)).toBe(3);", "expect(add(1, 2)).toBeDefined();"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "junit assertEquals to assertNotNull", path: "src/test/java/calc/CalcTest.java", allow: true, orig: javaTest, patched: edit(javaTest, "assertEquals(3, Calc.add(1, 2));", "assertNotNull(Calc.add(1, 2));"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "go guard condition flipped", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "if got != 3 {", "if got == 3 {"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "go guard made constant", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "if got != 3 {", "if false {"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "python wrapped in if False", path: "tests/test_calc.py", allow: true, orig: pyTest, patched: edit(pyTest, "    assert add(0, 0) == 0", "    if False:\n        assert add(0, 0) == 0"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "c comparison loosened", path: "src/calc.c", orig: cSrc, patched: edit(cSrc, "assert(a >= 0);", "assert(a >= 0 || 1);"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "compares a value with itself", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "if got := Up(c.in); got != c.want {", "if got := Up(c.in); got != got {"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "ruby matcher changed", path: "spec/calc_spec.rb", allow: true, orig: rbSpec, patched: edit(rbSpec, "to eq(3)", "not_to be_nil"), want: []string{RuleAssertionLoosened}},
	{rule: RuleAssertionLoosened, name: "identifier rename is allowed", path: "calc/calc_test.go", allow: true, orig: goTest, patched: strings.ReplaceAll(goTest, "got", "sum")},
	{rule: RuleAssertionLoosened, name: "rust rename of the function under test", path: "src/lib.rs", orig: rsSrc, patched: strings.ReplaceAll(rsSrc, "add", "sum")},

	// Expected values.
	{rule: RuleExpectedValueChanged, name: "go want changed to the output", path: "calc/calc_test.go", allow: true, msg: "calc_test.go:8: Add(1, 2) = -1, want 3", orig: goTest, patched: edit(edit(goTest, "if got != 3 {", "if got != -1 {"), "want 3", "want -1"), want: []string{RuleExpectedValueChanged}},
	{rule: RuleExpectedValueChanged, name: "go table row changed", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, `{"b", "B"},`, `{"b", "b"},`), want: []string{RuleExpectedValueChanged}},
	{rule: RuleExpectedValueChanged, name: "go table row added", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, `{"b", "B"},`, `{"b", "B"},`+"\n\t\t"+`{"c", "C"},`)},
	{rule: RuleExpectedValueChanged, name: "python parametrize row changed", path: "tests/test_calc.py", allow: true, orig: pyTest, patched: edit(pyTest, "(2, 2, 4),", "(2, 2, 0),"), want: []string{RuleExpectedValueChanged}},
	{rule: RuleExpectedValueChanged, name: "rust expected value", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "assert_eq!(add(1, 2), 3);", "assert_eq!(add(1, 2), -1);"), want: []string{RuleExpectedValueChanged}},
	{rule: RuleExpectedValueChanged, name: "js expected value", path: "src/calc.test.js", allow: true, orig: jsTest, patched: edit(jsTest, "toBe(3)", "toBe(-1)"), want: []string{RuleExpectedValueChanged}},
	{rule: RuleExpectedValueChanged, name: "php expected value", path: "tests/CalcTest.php", allow: true, orig: phpTest, patched: edit(phpTest, "assertSame(3,", "assertSame(-1,"), want: []string{RuleExpectedValueChanged}},
	{rule: RuleExpectedValueChanged, name: "literal change in code under test", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "a - b", "a + b + 0")},
	{rule: RuleExpectedValueChanged, name: "go example function", path: "calc/calc.go", orig: goSrc, patched: edit(goSrc, "Add(1, 2))", "Add(1, 1))"), want: []string{RuleExpectedValueChanged}},

	// Skips.
	{rule: RuleTestSkipped, name: "go t.Skip", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "\tgot := Add(1, 2)\n", "\tt.Skip(\"flaky\")\n\tgot := Add(1, 2)\n"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "go build ignore", path: "calc/calc_test.go", allow: true, orig: goTest, patched: "//go:build ignore\n\n" + goTest, want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "pytest skip mark", path: "tests/test_calc.py", allow: true, orig: pyTest, patched: edit(pyTest, "def test_add():", "@pytest.mark.skip\ndef test_add():"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "rust ignore", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "    #[test]\n    fn zero", "    #[test]\n    #[ignore]\n    fn zero"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "jest only", path: "src/calc.test.js", allow: true, orig: jsTest, patched: edit(jsTest, "it('adds'", "it.only('adds'"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "junit disabled", path: "src/test/java/calc/CalcTest.java", allow: true, orig: javaTest, patched: edit(javaTest, "    @Test\n    void zero", "    @Test\n    @Disabled\n    void zero"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "phpunit markTestSkipped", path: "tests/CalcTest.php", allow: true, orig: phpTest, patched: edit(phpTest, "        $this->assertSame", "        $this->markTestSkipped('x');\n        $this->assertSame"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "python early return", path: "tests/test_calc.py", allow: true, orig: pyTest, patched: edit(pyTest, "    assert add(1, 2) == 3\n", "    return\n    assert add(1, 2) == 3\n"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "go early return", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "\tif got != 3 {", "\treturn\n\tif got != 3 {"), want: []string{RuleTestSkipped}},
	{rule: RuleTestSkipped, name: "return at the end of a block", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "\t\t\tt.Fatalf(\"Up(%q) = %q\", c.in, got)\n", "\t\t\tt.Fatalf(\"Up(%q) = %q\", c.in, got)\n\t\t\treturn\n")},
	{rule: RuleTestSkipped, name: "rust tests compiled out", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "#[cfg(test)]", "#[cfg(all(test, feature = \"never\"))]"), want: []string{RuleTestSkipped, RuleTestRemoved}},
	{rule: RuleTestSkipped, name: "skip word in a string", path: "src/calc.test.js", allow: true, orig: jsTest, patched: edit(jsTest, "    expect(add(0, 0)).toBe(0);", "    const note = 'never it.skip(x) here';\n    expect(add(0, 0)).toBe(0);")},

	// Tests removed.
	{rule: RuleTestRemoved, name: "go test renamed out of discovery", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "func TestTable(", "func testTable("), want: []string{RuleTestRemoved}},
	{rule: RuleTestRemoved, name: "python test renamed", path: "tests/test_calc.py", allow: true, orig: pyTest, patched: edit(pyTest, "def test_neg(self):", "def _test_neg(self):"), want: []string{RuleTestRemoved}},
	{rule: RuleTestRemoved, name: "rust #[test] removed", path: "src/lib.rs", orig: rsSrc, patched: edit(rsSrc, "    #[test]\n    fn zero", "    fn zero"), want: []string{RuleTestRemoved}},
	{rule: RuleTestRemoved, name: "junit @Test removed", path: "src/test/java/calc/CalcTest.java", allow: true, orig: javaTest, patched: edit(javaTest, "    @Test\n    void zero", "    void zero"), want: []string{RuleTestRemoved}},
	{rule: RuleTestRemoved, name: "go test renamed within discovery", path: "calc/calc_test.go", allow: true, orig: goTest, patched: edit(goTest, "func TestTable(", "func TestUpper(")},

	// Suppressions.
	{rule: RuleSuppressionAdded, name: "go nolint", path: "calc/calc.go", orig: goSrc, patched: edit(goSrc, "return a - b", "return a - b //nolint:all"), want: []string{RuleSuppressionAdded}},
	{rule: RuleSuppressionAdded, name: "python type ignore", path: "calc.py", orig: pySrc, patched: edit(pySrc, "return x + 1", "return x + 1  # type: ignore"), want: []string{RuleSuppressionAdded}},
	{rule: RuleSuppressionAdded, name: "ts-expect-error", path: "src/a.mts", orig: "const a: number = f();\n", patched: "// @ts-expect-error\nconst a: number = f();\n", want: []string{RuleSuppressionAdded}},
	{rule: RuleSuppressionAdded, name: "rust allow", path: "src/lib.rs", orig: rsSrc, patched: "#![allow(dead_code)]\n" + rsSrc, want: []string{RuleSuppressionAdded}},
	{rule: RuleSuppressionAdded, name: "java SuppressWarnings", path: "src/main/java/A.java", orig: "class A {\n  void f() {}\n}\n", patched: "class A {\n  @SuppressWarnings(\"unchecked\")\n  void f() {}\n}\n", want: []string{RuleSuppressionAdded}},
	{rule: RuleSuppressionAdded, name: "asked for by the report", path: "src/lib.rs", orig: rsSrc, msg: "help: add `#[allow(dead_code)]` to silence", patched: edit(rsSrc, "pub fn add", "#[allow(dead_code)]\npub fn add")},
	{rule: RuleSuppressionAdded, name: "suppression text in a string", path: "calc.py", orig: pySrc, patched: edit(pySrc, "return x + 1", "return '# noqa'")},
}

func TestCheck(t *testing.T) {
	for _, c := range cases {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			in := Input{Path: c.path, Original: c.orig, Patched: c.patched, AllowTestEdits: c.allow, RenamesFromCommit: !c.anyTier, Tests: c.tests}
			if c.msg != "" {
				in.Reports = []contract.BugReport{{FilePath: c.path, LineNumber: max(c.line, 1), Message: c.msg}}
			}
			vs := Check(in)
			var got []string
			for _, v := range vs {
				if !slices.Contains(got, v.Rule) {
					got = append(got, v.Rule)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("rules %q, want %q\n%s", got, c.want, render(vs))
			}
		})
	}
}

func render(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  " + v.String() + "\n")
	}
	return b.String()
}

// TestEveryRuleHasRows checks that each rule has a row that breaks it and
// a row about it that passes.
func TestEveryRuleHasRows(t *testing.T) {
	for _, id := range RuleIDs() {
		pos, neg := false, false
		for _, c := range cases {
			if c.rule != id && !slices.Contains(c.want, id) {
				continue
			}
			if slices.Contains(c.want, id) {
				pos = true
			} else {
				neg = true
			}
		}
		if id == RuleTooLarge {
			continue // TestTooLarge
		}
		if !pos || !neg {
			t.Errorf("rule %s: a breaking row %v, a passing row %v", id, pos, neg)
		}
	}
}

func TestProducedValue(t *testing.T) {
	c := cases[slices.IndexFunc(cases, func(c tc) bool { return c.name == "go want changed to the output" })]
	vs := Check(Input{Path: c.path, Original: c.orig, Patched: c.patched, AllowTestEdits: true, Reports: []contract.BugReport{{Message: c.msg}}})
	if len(vs) == 0 || !strings.Contains(vs[0].Detail, "is in the report's message") {
		t.Errorf("no mention of the produced value:\n%s", render(vs))
	}
}

func TestTooLarge(t *testing.T) {
	big := strings.Repeat("x\n", maxInput/2+1)
	vs := Check(Input{Path: "a.go", Original: big, Patched: big + "y\n"})
	if len(vs) != 1 || vs[0].Rule != RuleTooLarge {
		t.Errorf("got %v", vs)
	}
	if vs := Check(Input{Path: "a.go", Original: big, Patched: big}); vs != nil {
		t.Errorf("no change gave %v", vs)
	}
}

func TestViolationString(t *testing.T) {
	if s := (Violation{Rule: "test-file", Detail: "d"}).String(); s != "test-file: d" {
		t.Error(s)
	}
	if s := (Violation{Rule: "assertion-removed", Line: 4, Detail: "d"}).String(); s != "assertion-removed: d (line 4)" {
		t.Error(s)
	}
}

func FuzzCheck(f *testing.F) {
	for _, c := range cases {
		f.Add(c.path, c.orig, c.patched, c.msg, c.allow)
	}
	f.Fuzz(func(t *testing.T, path, a, b, msg string, allow bool) {
		in := Input{Path: path, Original: a, Patched: b, AllowTestEdits: allow, RenamesFromCommit: allow, Reports: []contract.BugReport{{Message: msg}}}
		first := Check(in)
		if again := Check(in); !slices.Equal(first, again) {
			t.Fatalf("not deterministic: %v then %v", first, again)
		}
		for _, v := range first {
			if v.Rule == "" || v.Detail == "" || v.Line < 0 {
				t.Fatalf("bad violation %+v", v)
			}
		}
	})
}
