package integrity

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
)

const pyCheckTest = `import json
import os
import unittest

import pytest

from calc import add, parse


CASES = [(1, 2, 3), (2, 2, 4)]


class AddTest(unittest.TestCase):
    maxDiff = None

    def test_add(self):
        unused = 5
        spare = {"a": [1, 2], "b": CASES[0][1] * 2}
        width = len(CASES) * 2
        v = parse("x")
        got = add(1, 2)
        self.assertEqual(got, 3)
        for a, b, want in CASES:
            with self.subTest(a=a):
                self.assertEqual(add(a, b), want)


@pytest.mark.parametrize("a,b,want", CASES)
def test_table(a, b, want):
    """Adds the table's rows.

    >>> add(1, 1)
    2
    """
    assert add(a, b) == want, f"add({a}, {b})"


@pytest.mark.skipif(os.name == "nt", reason="posix only")
def test_posix():
    label = "posix"
    with pytest.raises(ValueError):
        parse("")
    print(f"{label} done")  # keeps the label read
`

// pyEdit replaces old with new once in src, failing when src lacks old.
func pyEdit(t *testing.T, src, old, new string) string {
	t.Helper()
	if !strings.Contains(src, old) {
		t.Fatalf("the test file has no %q", old)
	}
	return strings.Replace(src, old, new, 1)
}

// pyUnused is flake8's report of an unused import.
func pyUnused(name string) []contract.BugReport {
	return []contract.BugReport{{Message: "F401 '" + name + "' imported but unused"}}
}

func nameErr(name string) []contract.BugReport {
	return []contract.BugReport{{Message: "NameError: name '" + name + "' is not defined"}}
}

// TestPyChecksKept: a Python test file's edit is proven to keep its
// checks when it removes dead statements, keeps an unused result's call,
// removes unused imports or adds one a report asks for; any change of an
// assertion, an expected value, a table, a marker, a docstring, a
// comment, a test, or of what runs is no proof.
func TestPyChecksKept(t *testing.T) {
	src := pyCheckTest
	re := strings.Replace(src, "import json\n", "", 1) + "\ndef test_re():\n    assert re.match(\"a\", \"a\")\n"
	for _, tc := range []struct {
		name          string
		orig, patched string
		reports       []contract.BugReport
		kept          bool
	}{
		{"unchanged", src, src, nil, false}, // nothing set aside changed: left to the other rules
		{"layout alone", src, src + "\n\n", nil, false},
		{"dead literal removed", src, pyEdit(t, src, "        unused = 5\n", ""), nil, true},
		{"dead container removed", src, pyEdit(t, src, "        spare = {\"a\": [1, 2], \"b\": CASES[0][1] * 2}\n", ""), nil, true},
		{"unused result's expression kept", src, pyEdit(t, src, "        width = len(CASES) * 2\n", "        len(CASES) * 2\n"), nil, true},
		{"unused result's call kept", src, pyEdit(t, src, `v = parse("x")`, `parse("x")`), nil, true},
		{"unused import removed", src, pyEdit(t, src, "import json\n", ""), pyUnused("json"), true},
		{"unused import removed with no report naming it", src, pyEdit(t, src, "import json\n", ""), nil, false},
		{"unused import removed for another name's report", src, pyEdit(t, src, "import json\n", ""), pyUnused("yaml"), false},
		{"unused name of an import removed", pyEdit(t, src, "from calc import add, parse", "from calc import add, mul, parse"), src, pyUnused("calc.mul"), true},
		{"unused name of an import removed with no report", pyEdit(t, src, "from calc import add, parse", "from calc import add, mul, parse"), src, nil, false},
		{"import added for a name a report says is missing", re, pyEdit(t, re, "import os\n", "import os\nimport re\n"), nameErr("re"), true},
		{"import added with no report", re, pyEdit(t, re, "import os\n", "import os\nimport re\n"), nil, false},
		{"import added for an assertion from a helper", re, pyEdit(t, re, "import os\n", "import os\nfrom helpers import assert_equal\n"), nameErr("assert_equal"), false},
		{"import added for an assertion from its library", re, pyEdit(t, re, "import os\n", "import os\nfrom unittest.mock import patch\n"), nameErr("patch"), true},
		{"used import removed", src, pyEdit(t, src, "import os\n", ""), nil, false},
		{"test library swapped", src, pyEdit(t, src, "import pytest\n", "import fakepytest as pytest\n"), nil, false},
		{"expected value changed", src, pyEdit(t, src, "self.assertEqual(got, 3)", "self.assertEqual(got, 4)"), nil, false},
		{"assertion loosened", src, pyEdit(t, src, "self.assertEqual(got, 3)", "self.assertTrue(got)"), nil, false},
		{"assert statement's operator changed", src, pyEdit(t, src, "== want", "!= want"), nil, false},
		{"assertion removed", src, pyEdit(t, src, "        self.assertEqual(got, 3)\n", ""), nil, false},
		{"assertion's message changed", src, pyEdit(t, src, `f"add({a}, {b})"`, `f"add({a})"`), nil, false},
		{"table row changed", src, pyEdit(t, src, "(2, 2, 4)", "(2, 2, 5)"), nil, false},
		{"skip added", src, pyEdit(t, src, "@pytest.mark.parametrize", "@pytest.mark.skip\n@pytest.mark.parametrize"), nil, false},
		{"skip condition changed", src, pyEdit(t, src, `os.name == "nt"`, `os.name != "nt"`), nil, false},
		{"xfail added", src, pyEdit(t, src, "def test_posix():\n", "def test_posix():\n    pytest.xfail()\n"), nil, false},
		{"test renamed", src, pyEdit(t, src, "def test_table(", "def table("), nil, false},
		{"doctest changed", src, pyEdit(t, src, "    2\n    \"\"\"", "    3\n    \"\"\""), nil, false},
		{"comment added", src, pyEdit(t, src, "        unused = 5\n", "        # noqa\n        unused = 5\n"), nil, false},
		{"comment removed", src, pyEdit(t, src, "  # keeps the label read", ""), nil, false},
		{"live variable removed", src, pyEdit(t, src, "        got = add(1, 2)\n", ""), nil, false},
		{"variable read in an f-string removed", src, pyEdit(t, src, "    label = \"posix\"\n", ""), nil, false},
		{"unused result's call removed", src, pyEdit(t, src, "        v = parse(\"x\")\n", ""), nil, false},
		{"unused result's call changed", src, pyEdit(t, src, `v = parse("x")`, `parse("y")`), nil, false},
		{"class attribute removed", src, pyEdit(t, src, "    maxDiff = None\n", ""), nil, false},
		{"early return added", src, pyEdit(t, src, "        unused = 5\n", "        return\n"), nil, false},
		{"exit added", src, pyEdit(t, src, "        unused = 5\n", "        os._exit(0)\n"), nil, false},
		{"statement moved out of its block", src, pyEdit(t, src, "            with self.subTest(a=a):\n                self.assertEqual(add(a, b), want)\n",
			"            with self.subTest(a=a):\n                pass\n            self.assertEqual(add(a, b), want)\n"), nil, false},
		{"dead statement before a docstring", src, pyEdit(t, src, "def test_table(a, b, want):\n", "def test_table(a, b, want):\n    x = 1\n"), nil, false},
		{"does not parse", src, pyEdit(t, src, `parse("x")`, `parse("x)`), nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pyChecksKept(tc.orig, tc.patched, tc.reports); got != tc.kept {
				t.Errorf("pyChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestPyDeadNeedsAnUnreadLocal: a statement is dead only inside a
// function that reads its name nowhere else and never reaches its frame.
func TestPyDeadNeedsAnUnreadLocal(t *testing.T) {
	for _, tc := range []struct {
		name, orig, patched string
		kept                bool
	}{
		{"assigned twice, never read", "def test_a():\n    n = 0\n    n = 1\n    assert f()\n",
			"def test_a():\n    assert f()\n", true},
		{"read by a nested function", "def test_a():\n    n = 0\n    def g():\n        return n\n    assert g() == 0\n",
			"def test_a():\n    def g():\n        return n\n    assert g() == 0\n", false},
		{"frame read by locals()", "def test_a():\n    n = 0\n    assert check(locals())\n",
			"def test_a():\n    assert check(locals())\n", false},
		{"read by the test runner", "def test_a():\n    __tracebackhide__ = True\n    assert f()\n",
			"def test_a():\n    assert f()\n", false},
		{"module level", "n = 0\n\ndef test_a():\n    assert f()\n", "\ndef test_a():\n    assert f()\n", false},
		{"a comprehension iterates", "def test_a():\n    n = [x for x in gen]\n    assert f()\n",
			"def test_a():\n    assert f()\n", false},
		{"a comprehension kept as a statement", "def test_a():\n    n = [x for x in gen]\n    assert f()\n",
			"def test_a():\n    [x for x in gen]\n    assert f()\n", true},
		{"an unpacking iterates", "def test_a():\n    n = [*gen]\n    assert f()\n",
			"def test_a():\n    assert f()\n", false},
		{"an f-string's field may call", "def test_a():\n    n = f\"{x}\"\n    assert f()\n",
			"def test_a():\n    assert f()\n", false},
		{"an assignment in the value", "def test_a():\n    n = m = 1\n    assert m\n",
			"def test_a():\n    assert m\n", false},
		{"a second statement on the line", "def test_a():\n    n = 0; m = 1\n    assert f()\n",
			"def test_a():\n    m = 1\n    assert f()\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pyChecksKept(tc.orig, tc.patched, nil); got != tc.kept {
				t.Errorf("pyChecksKept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestCheckPythonTestFile: through Check, a Python test file's edit the
// proof holds for breaks no rule; one that weakens a check still breaks
// test-file and the rule of what it weakens.
func TestCheckPythonTestFile(t *testing.T) {
	path := "tests/test_calc.py"
	kept := Check(Input{Path: path, Original: pyCheckTest, Patched: pyEdit(t, pyCheckTest, "        unused = 5\n", ""),
		Reports: []contract.BugReport{{FilePath: path, LineNumber: 17, Message: "F841 local variable 'unused' is assigned to but never used"}}})
	if len(kept) != 0 {
		t.Errorf("a dead statement's removal breaks %v", kept)
	}
	weak := Check(Input{Path: path, Original: pyCheckTest, Patched: pyEdit(t, pyCheckTest, "self.assertEqual(got, 3)", "self.assertEqual(got, 4)")})
	if !hasRule(weak, RuleTestFile) || !hasRule(weak, RuleExpectedValueChanged) {
		t.Errorf("a changed expected value breaks %v, want test-file and expected-value-changed", weak)
	}
}

func hasRule(vs []Violation, rule string) bool {
	for _, v := range vs {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

func FuzzPyChecksKept(f *testing.F) {
	f.Add(pyCheckTest, strings.Replace(pyCheckTest, "        unused = 5\n", "", 1))
	f.Add("def f():\n    x = f\"{a[\"b\"]}\"\n", "def f():\n    pass\n")
	f.Add("x = '''\n", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		if pyChecksKept(a, b, nil) {
			if _, ok := lang.TokensPython(a); !ok {
				t.Fatal("a proof from a text the lexer refuses")
			}
		}
	})
}
