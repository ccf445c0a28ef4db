package rerun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jsWorkspace makes a workspace holding the test files of the captured
// jest and vitest logs under testdata/jsfiles (each a failure thrown in
// src/cart.js, under test/cart.test.js, beside five other test files).
func jsWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, f := range []string{"test/cart.test.js", "test/other1.test.js", "test/both.test.js", "lib/helper.js", "test/c++.test.js"} {
		p := filepath.Join(ws, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "jsfiles", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInJSTestFiles: a jest or vitest plan that names no file gets the
// file where the runner's own report puts each failing test; anything it
// cannot be sure of leaves the plan as it was.
func TestInJSTestFiles(t *testing.T) {
	ws := jsWorkspace(t)
	jestLog, vitestLog := readLog(t, "jest-thrown.log"), readLog(t, "vitest-thrown.log")
	jest := Plan{Runner: "jest", Narrowed: true, Tests: []string{"cart totals an empty cart"},
		Command: "jest -t '^cart totals an empty cart$'", Proof: "jest -t '^cart totals an empty cart$' --json"}
	vitest := Plan{Runner: "vitest", Narrowed: true, Tests: []string{"cart totals an empty cart"},
		Command: "npx --no -- vitest run -t '^cart totals an empty cart$'", Proof: "npx --no -- vitest run -t '^cart totals an empty cart$' --reporter=junit"}
	const twoFiles = "FAIL test/cart.test.js\n  ● cart › totals an empty cart\n\nFAIL test/both.test.js\n  ● cart › totals an empty cart\n"
	for _, tc := range []struct {
		name           string
		plan           Plan
		log            string
		command, proof string // "" : unchanged
	}{
		{"jest, its report", jest, jestLog, "jest -t '^cart totals an empty cart$' 'test/cart.test.js'", "jest -t '^cart totals an empty cart$' 'test/cart.test.js' --json"},
		{"vitest, its report", vitest, vitestLog,
			"npx --no -- vitest run -t '^cart totals an empty cart$' 'test/cart.test.js'", "npx --no -- vitest run -t '^cart totals an empty cart$' 'test/cart.test.js' --reporter=junit"},
		{"vitest, a project's name first", vitest, " FAIL  |web| test/cart.test.js > cart > totals an empty cart\n",
			"npx --no -- vitest run -t '^cart totals an empty cart$' 'test/cart.test.js'", "npx --no -- vitest run -t '^cart totals an empty cart$' 'test/cart.test.js' --reporter=junit"},
		{"jest, the name in two files", jest, twoFiles, "", ""},
		{"jest, the test not in the log", jest, "FAIL test/cart.test.js\n  ● cart › counts items\n", "", ""},
		{"jest, the block before any file", jest, "  ● cart › totals an empty cart\nFAIL test/cart.test.js\n", "", ""},
		{"jest, a suite that failed to run", Plan{Runner: "jest", Narrowed: true, Tests: []string{"Test suite failed to run"}, Command: "jest -t '^Test suite failed to run$'"},
			"FAIL test/cart.test.js\n  ● Test suite failed to run\n", "", ""},
		{"jest, a file that is no test file", jest, "FAIL lib/helper.js\n  ● cart › totals an empty cart\n", "", ""},
		{"jest, a file the workspace lacks", jest, "FAIL test/gone.test.js\n  ● cart › totals an empty cart\n", "", ""},
		{"jest, a path jest would read as another", jest, "FAIL test/c++.test.js\n  ● cart › totals an empty cart\n", "", ""},
		{"vitest, the same path given as it is", vitest, " FAIL  test/c++.test.js > cart > totals an empty cart\n",
			"npx --no -- vitest run -t '^cart totals an empty cart$' 'test/c++.test.js'", "npx --no -- vitest run -t '^cart totals an empty cart$' 'test/c++.test.js' --reporter=junit"},
		{"jest, a path that leaves the workspace", jest, "FAIL ../x/cart.test.js\n  ● cart › totals an empty cart\n", "", ""},
		{"jest, files named already", Plan{Runner: "jest", Narrowed: true, Tests: jest.Tests,
			Command: "jest -t '^cart totals an empty cart$' 'test/cart.test.js'", Proof: "jest -t '^cart totals an empty cart$' 'test/cart.test.js' --json"}, jestLog, "", ""},
		{"vitest read as jest's report", jest, vitestLog, "", ""},
		{"a plan not narrowed", Plan{Runner: "jest", Tests: jest.Tests, Command: "npm test"}, jestLog, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.plan.InTestFiles(tc.log, ws)
			wantCmd, wantProof := tc.command, tc.proof
			if wantCmd == "" {
				wantCmd, wantProof = tc.plan.Command, tc.plan.Proof
			}
			if got.Command != wantCmd || got.Proof != wantProof || strings.Join(got.Tests, ",") != strings.Join(tc.plan.Tests, ",") {
				t.Errorf("InTestFiles =\n  %q\n  %q\nwant\n  %q\n  %q", got.Command, got.Proof, wantCmd, wantProof)
			}
		})
	}
}

// FuzzJSLocations: any log reads without panicking, every name found is
// one the log holds, and a plan is only ever narrowed by appending files.
func FuzzJSLocations(f *testing.F) {
	f.Add("FAIL test/a.test.js\n  ● a › b\n")
	f.Add(" FAIL  |p| test/a.test.js > a > b\n")
	f.Fuzz(func(t *testing.T, log string) {
		for _, at := range []map[string]string{jestLocations(log), vitestLocations(log)} {
			for name, file := range at {
				if name == "" || file == "" || !strings.Contains(log, file) {
					t.Fatalf("%q located at %q", name, file)
				}
			}
		}
		for _, runner := range []string{"jest", "vitest"} {
			p := Plan{Runner: runner, Narrowed: true, Tests: []string{"a b"}, Command: runner + " -t '^a b$'", Proof: runner + " -t '^a b$' --json"}
			got := p.InTestFiles(log, "/nonexistent-ws")
			if !strings.HasPrefix(got.Command, p.Command) {
				t.Fatalf("command %q", got.Command)
			}
		}
	})
}

// TestJSLocations: the failing tests' files as jest's and vitest's own
// reports give them, in real reports of other versions and layouts: jest
// 29 in colour (its "FAIL" a badge with a blank before it, once the
// colours are stripped as the executor strips a build's), with describe
// blocks and console output; vitest 4 in colour.
func TestJSLocations(t *testing.T) {
	for _, tc := range []struct {
		log  string
		read func(string) map[string]string
		want map[string]string
	}{
		{"jest-thrown.log", jestLocations, map[string]string{"cart totals an empty cart": "test/cart.test.js"}},
		{"jest29-colour.log", jestLocations, map[string]string{"money formats cents": "test/money.test.js", "money totals items": "test/money.test.js"}},
		{"jest29-console-nested.log", jestLocations, map[string]string{"util parses bad input": "src/util.test.js", "util twice doubles": "src/util.test.js"}},
		{"vitest-thrown.log", vitestLocations, map[string]string{"cart totals an empty cart": "test/cart.test.js"}},
		{"vitest4-colour.log", vitestLocations, map[string]string{"money formats cents": "test/money.test.js", "money totals items": "test/money.test.js"}},
		// Each reader reads its own runner's report only.
		{"vitest4-colour.log", jestLocations, map[string]string{}},
		{"jest29-colour.log", vitestLocations, map[string]string{}},
	} {
		got := tc.read(readLog(t, tc.log))
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.log, got, tc.want)
			continue
		}
		for name, file := range tc.want {
			if got[name] != file {
				t.Errorf("%s: %q at %q, want %q", tc.log, name, got[name], file)
			}
		}
	}
}
