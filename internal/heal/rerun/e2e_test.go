package rerun_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/rerun"
	"github.com/salve-dev/salve/internal/sandbox"
)

// project is a tiny project with one passing and one failing test.
type project struct {
	name      string
	tools     []string // skip when missing
	probe     []string // a command that must succeed, else skip
	files     map[string]string
	command   string
	typ       string
	runner    string
	failing   string // the failing test's name, as printed
	passing   string // the passing test's name, as printed
	wantTests []string
	// elsewhere, when set, is a test of another test file, which a re-run
	// narrowed to the failing test's file never mentions.
	elsewhere string
	// oneFile, when set, is what the runner's summary says of a re-run
	// that loaded the failing test's file alone.
	oneFile string
	// bin, when set, is a folder (from the repository's root) put first
	// on the project's PATH: where setup installs a runner that must not
	// be on every test's PATH.
	bin string
}

// jsRunnersBin is where scripts/heal/setup.sh installs jest and vitest.
const jsRunnersBin = ".deps/jsrunners/node_modules/.bin"

var projects = []project{
	{
		name: "go", tools: []string{"go"}, typ: "go", runner: "go",
		command: "go vet ./... && go test ./...",
		files: map[string]string{
			"go.mod": "module example.com/ledger\n\ngo 1.22\n",
			"ledger.go": `// Package ledger keeps running balances.
package ledger

// Credit adds amount to balance.
func Credit(balance, amount int) int { return balance + amount }

// Debit takes amount from balance.
func Debit(balance, amount int) int { return balance + amount }
`,
			"ledger_test.go": `package ledger

import "testing"

func TestCreditAddsAmount(t *testing.T) {
	if got := Credit(10, 5); got != 15 {
		t.Errorf("Credit(10, 5) = %d, want 15", got)
	}
}

func TestDebitTakesAmount(t *testing.T) {
	if got := Debit(10, 5); got != 5 {
		t.Errorf("Debit(10, 5) = %d, want 5", got)
	}
}
`,
			"fmtx/fmtx.go":      "// Package fmtx formats amounts.\npackage fmtx\n\n// Cents formats cents.\nfunc Cents(c int) int { return c }\n",
			"fmtx/fmtx_test.go": "package fmtx\n\nimport \"testing\"\n\nfunc TestCentsKeepsValue(t *testing.T) {\n\tif Cents(3) != 3 {\n\t\tt.Fatal(\"changed\")\n\t}\n}\n",
		},
		failing: "TestDebitTakesAmount", passing: "TestCreditAddsAmount", wantTests: []string{"TestDebitTakesAmount"},
	},
	{
		name: "unittest", tools: []string{"python3"}, typ: "python", runner: "unittest",
		command: "python3 -m unittest discover -v",
		files: map[string]string{
			"ledger.py":         "\"\"\"Running balances.\"\"\"\n\n\ndef credit(balance, amount):\n    return balance + amount\n\n\ndef debit(balance, amount):\n    return balance + amount\n",
			"tests/__init__.py": "",
			"tests/test_ledger.py": `import unittest

from ledger import credit, debit


class LedgerTest(unittest.TestCase):
    def test_credit_adds_amount(self):
        self.assertEqual(credit(10, 5), 15)

    def test_debit_takes_amount(self):
        self.assertEqual(debit(10, 5), 5)


if __name__ == "__main__":
    unittest.main()
`,
		},
		failing: "test_debit_takes_amount", passing: "test_credit_adds_amount", wantTests: []string{"test_debit_takes_amount"},
	},
	{
		name: "pytest", tools: []string{"python3"}, probe: []string{"python3", "-m", "pytest", "--version"}, typ: "python", runner: "pytest",
		command: "python3 -m pytest",
		files: map[string]string{
			"ledger.py":            "def credit(balance, amount):\n    return balance + amount\n\n\ndef debit(balance, amount):\n    return balance + amount\n",
			"tests/test_ledger.py": "from ledger import credit, debit\n\n\ndef test_credit_adds_amount():\n    assert credit(10, 5) == 15\n\n\ndef test_debit_takes_amount():\n    assert debit(10, 5) == 5\n",
			"tests/conftest.py":    "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
		},
		failing: "test_debit_takes_amount", passing: "test_credit_adds_amount",
		wantTests: []string{"tests/test_ledger.py::test_debit_takes_amount"},
	},
	{
		name: "node", tools: []string{"node"}, probe: []string{"node", "--test", "--test-name-pattern=x", "--help"}, typ: "node", runner: "node",
		command: "node --test",
		files: map[string]string{
			"package.json": `{"name": "ledger", "version": "1.0.0", "type": "module", "scripts": {"test": "node --test"}}` + "\n",
			"ledger.js":    "export const credit = (balance, amount) => balance + amount;\nexport const debit = (balance, amount) => balance + amount;\n",
			"test/ledger.test.js": `import test from 'node:test';
import assert from 'node:assert/strict';
import { credit, debit } from '../ledger.js';

test('credit adds the amount', () => {
  assert.equal(credit(10, 5), 15);
});

test('debit takes the amount', () => {
  assert.equal(debit(10, 5), 5);
});
`,
		},
		failing: "debit takes the amount", passing: "credit adds the amount", wantTests: []string{"debit takes the amount"},
	},
	// The failure is thrown in the code under test, so the report names
	// the code, not the test file: the re-run finds the file in node's
	// TAP and starts it alone, not the other test file too.
	{
		name: "node/thrown-in-code", tools: []string{"node"}, probe: []string{"node", "--test", "--test-name-pattern=x", "--help"}, typ: "node", runner: "node",
		command: "node --test",
		files: map[string]string{
			"package.json": `{"name": "ledger", "version": "1.0.0", "type": "module"}` + "\n",
			"ledger.js":    "export const credit = (balance, amount) => balance + amount;\nexport const last = (xs) => xs[xs.length].valueOf();\n",
			"test/ledger.test.js": `import test from 'node:test';
import assert from 'node:assert/strict';
import { credit, last } from '../ledger.js';

test('credit adds the amount', () => {
  assert.equal(credit(10, 5), 15);
});

test('last of three', () => {
  assert.equal(last([1, 2, 3]), 3);
});
`,
			"test/opening.test.js": `import test from 'node:test';
import assert from 'node:assert/strict';
import { credit } from '../ledger.js';

test('an opening balance stays', () => {
  assert.equal(credit(7, 0), 7);
});
`,
		},
		failing: "last of three", passing: "credit adds the amount", wantTests: []string{"last of three"},
		elsewhere: "an opening balance stays",
	},
	// jest and vitest, the same: the report names the code, and the
	// re-run finds the test's file in the runner's own report (jest's
	// "FAIL path" above the test's block, vitest's "FAIL path > name"),
	// so the runner loads that file alone.
	{
		name: "jest/thrown-in-code", tools: []string{"jest"}, bin: jsRunnersBin, typ: "node", runner: "jest",
		command: "jest",
		files: map[string]string{
			"package.json": `{"name": "cart", "version": "1.0.0", "private": true}` + "\n",
			"src/cart.js":  "function total(cart) {\n  return cart.items.reduce((s, i) => s + i.price, 0);\n}\nfunction count(cart) { return cart.items.length; }\nmodule.exports = { total, count };\n",
			"test/cart.test.js": `const { total, count } = require('../src/cart');
describe('cart', () => {
  test('totals an empty cart', () => { expect(total({})).toBe(0); });
  test('counts items', () => { expect(count({ items: [1, 2] })).toBe(2); });
});
`,
			"test/other.test.js": "test('an other file', () => { expect(1 + 1).toBe(2); });\n",
		},
		failing: "totals an empty cart", passing: "counts items", wantTests: []string{"cart totals an empty cart"},
		oneFile: "Test Suites: 1 failed, 1 total",
	},
	{
		name: "vitest/thrown-in-code", tools: []string{"vitest"}, bin: jsRunnersBin, typ: "node", runner: "vitest",
		command: "vitest run",
		files: map[string]string{
			"package.json": `{"name": "cart", "version": "1.0.0", "private": true, "type": "module"}` + "\n",
			"src/cart.js":  "export function total(cart) {\n  return cart.items.reduce((s, i) => s + i.price, 0);\n}\nexport function count(cart) { return cart.items.length; }\n",
			"test/cart.test.js": `import { describe, test, expect } from 'vitest';
import { total, count } from '../src/cart.js';
describe('cart', () => {
  test('totals an empty cart', () => { expect(total({})).toBe(0); });
  test('counts items', () => { expect(count({ items: [1, 2] })).toBe(2); });
});
`,
			"test/other.test.js": "import { test, expect } from 'vitest';\ntest('an other file', () => { expect(1 + 1).toBe(2); });\n",
		},
		failing: "totals an empty cart", passing: "counts items", wantTests: []string{"cart totals an empty cart"},
		oneFile: "Test Files  1 failed (1)",
	},
	{
		name: "cargo", tools: []string{"cargo"}, typ: "rust", runner: "cargo",
		command: "cargo build --offline && cargo test --offline",
		files: map[string]string{
			"Cargo.toml": "[package]\nname = \"ledger\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
			"src/lib.rs": `//! Running balances.

/// Adds amount to balance.
pub fn credit(balance: i64, amount: i64) -> i64 {
    balance + amount
}

/// Takes amount from balance.
pub fn debit(balance: i64, amount: i64) -> i64 {
    balance + amount
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credit_adds_amount() {
        assert_eq!(credit(10, 5), 15);
    }

    #[test]
    fn debit_takes_amount() {
        assert_eq!(debit(10, 5), 5);
    }
}
`,
		},
		failing: "debit_takes_amount", passing: "credit_adds_amount", wantTests: []string{"tests::debit_takes_amount"},
	},
}

// TestRealRunners writes each tiny project, runs its real command, parses
// the log, and runs the plan: only the failing test runs, and fails again.
func TestRealRunners(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real test runners")
	}
	for _, pr := range projects {
		t.Run(pr.name, func(t *testing.T) {
			var env []string
			if pr.bin != "" {
				bin, err := filepath.Abs(filepath.Join("..", "..", "..", filepath.FromSlash(pr.bin)))
				if err != nil {
					t.Fatal(err)
				}
				for _, tool := range pr.tools {
					if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
						t.Skipf("%s is not installed in %s (scripts/heal/setup.sh installs it)", tool, pr.bin)
					}
				}
				env = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
			}
			for _, tool := range pr.tools {
				if _, err := exec.LookPath(tool); err != nil && pr.bin == "" {
					t.Skipf("%s is not installed", tool)
				}
			}
			if len(pr.probe) > 0 {
				if err := exec.Command(pr.probe[0], pr.probe[1:]...).Run(); err != nil {
					t.Skipf("%s does not work here (%v): the %s runner is not installed", strings.Join(pr.probe, " "), err, pr.runner)
				}
			}
			dir := t.TempDir()
			for name, body := range pr.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, log := shell(t, dir, pr.command, env...)
			if code == 0 {
				t.Fatalf("the project passes:\n%s", log)
			}
			bugs := logparse.ParseString(log, logparse.Options{Root: dir, Workspace: dir})
			plan := rerun.For(pr.command, pr.typ, bugs).InPackages(log).InTestFiles(log, dir)
			if !plan.Narrowed || plan.Runner != pr.runner || strings.Join(plan.Tests, ",") != strings.Join(pr.wantTests, ",") {
				t.Fatalf("plan %+v, want runner %s selecting %q\nreports: %v\nlog:\n%s", plan, pr.runner, pr.wantTests, bugs, log)
			}
			code, out := shell(t, dir, plan.Command, env...)
			t.Logf("%s\n%s", plan.Command, out)
			if code == 0 {
				t.Errorf("the failing test passed on the re-run")
			}
			if !strings.Contains(out, pr.failing) {
				t.Errorf("the re-run does not name %q", pr.failing)
			}
			if ranOther(out, pr.passing, pr.runner) {
				t.Errorf("the re-run ran the passing test %q", pr.passing)
			}
			if !plan.Ran(out) {
				t.Errorf("Ran = false")
			}
			if pr.elsewhere != "" && strings.Contains(out, pr.elsewhere) {
				t.Errorf("the re-run started another test file: it mentions %q", pr.elsewhere)
			}
			if pr.oneFile != "" && !strings.Contains(out, pr.oneFile) {
				t.Errorf("the re-run loaded other test files: its summary does not say %q", pr.oneFile)
			}
		})
	}
}

// ranOther reports whether out shows the test name run (a line naming it
// that is not a skip note), as Plan.Ran reads it.
func ranOther(out, name, runner string) bool {
	return rerun.Plan{Command: "x", Tests: []string{name}, Runner: runner}.Ran(out)
}

// shell runs a command line in dir through sandbox.Run; extra are
// variables set over the test's environment.
func shell(t *testing.T, dir, command string, extra ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env := append(append(os.Environ(), "NO_COLOR=1", "GOFLAGS=-mod=mod"), extra...)
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: "sh", Args: []string{"-c", command}, Dir: dir, Env: env, Combined: true, Timeout: 4 * time.Minute})
	if err != nil {
		t.Fatalf("run %q: %v", command, err)
	}
	return res.ExitCode, string(res.Stdout)
}
