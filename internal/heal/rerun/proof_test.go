package rerun

import (
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestProof checks each runner's proof command: the plan's own selection,
// with the runner's structured output switched on.
func TestProof(t *testing.T) {
	fail := func(tool, file, name string) contract.BugReport {
		return contract.BugReport{FilePath: file, LineNumber: 3, ErrorType: contract.ErrLogic, Severity: "error", Tool: tool, TestName: &name}
	}
	for _, tc := range []struct {
		name, command, project string
		bug                    contract.BugReport
		want                   string
	}{
		{"go", "go test ./...", "go", fail("go test", "calc/calc_test.go", "TestAdd"), `go test -count=1 -json -run '^TestAdd$' './calc'`},
		{"pytest", "pytest", "python", fail("pytest", "tests/test_calc.py", "test_add"), `pytest -v 'tests/test_calc.py::test_add' -rA`},
		{"unittest", "python3 -m unittest discover -v", "python", fail("unittest", "test_calc.py", "CalcTest.test_add"), `python3 -m unittest discover -v -k '*.CalcTest.test_add'`},
		{"node", "node --test", "node", fail("node:test", "calc.test.js", "adds"), `node --test --test-reporter=tap --test-name-pattern='adds' 'calc.test.js'`},
		{"jest", "npx jest", "node", fail("jest", "calc.test.js", "adds"), `npx jest -t '^adds$' 'calc.test.js' --json`},
		{"vitest", "npx vitest run", "node", fail("vitest", "calc.test.ts", "adds"), `npx vitest run -t '^adds$' 'calc.test.ts' --reporter=junit`},
		{"mocha", "npx mocha", "node", fail("mocha", "test/calc.js", "adds"), `npx mocha --grep 'adds' --reporter tap`},
		{"cargo", "cargo test --offline", "rust", fail("cargo test", "tests/lerp.rs", "middle"), `cargo test --offline -- --exact 'middle'`},
		{"dotnet has none", "dotnet test", "unknown", fail("dotnet test", "Tests/A.cs", "Acme.A.B"), ``},
		{"a whole command has none", "make check", "make", fail("googletest", "test/vec_test.cc", "Vec.Push"), ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := For(tc.command, tc.project, []contract.BugReport{tc.bug})
			if p.Proof != tc.want {
				t.Errorf("Proof = %q, want %q (command %q)", p.Proof, tc.want, p.Command)
			}
		})
	}
}
