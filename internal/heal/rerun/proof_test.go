package rerun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestProofThroughNpx runs the proof command a project behind a command
// salve cannot narrow (`make test`) gets through the real npx, with a stand-in runner that prints its
// arguments: npx must hand the runner its selection and its structured
// output switch, not take them as npm's own options.
func TestProofThroughNpx(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx is not installed")
	}
	for _, tc := range []struct{ runner, tool, want string }{
		{"jest", "jest", "-t ^adds$ calc.test.js --json"},
		{"mocha", "mocha", "--grep adds --reporter tap"},
	} {
		t.Run(tc.runner, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "node_modules", ".bin")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bin, tc.runner), []byte("#!/bin/sh\necho \"ARGS: $*\"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"test":"`+tc.runner+`"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			name := "adds"
			p := For("make test", "node", []contract.BugReport{{FilePath: "calc.test.js", LineNumber: 3, ErrorType: contract.ErrLogic, Tool: tc.tool, TestName: &name}})
			if p.Proof == "" {
				t.Fatalf("no proof command for make test (plan %+v)", p)
			}
			cmd := exec.Command("sh", "-c", p.Proof)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_offline=true")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", p.Proof, err, out)
			}
			if !strings.Contains(string(out), "ARGS: "+tc.want+"\n") {
				t.Errorf("%s reached the runner as:\n%s\nwant ARGS: %s", p.Proof, out, tc.want)
			}
		})
	}
}
