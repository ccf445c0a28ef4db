package rerun

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// fail is a failing-test report.
func fail(tool, file, test string) contract.BugReport {
	return contract.BugReport{FilePath: file, LineNumber: 3, ErrorType: contract.ErrLogic, Message: "assertion failed", TestName: &test, Tool: tool, Severity: "error"}
}

func TestFor(t *testing.T) {
	compile := contract.BugReport{FilePath: "calc.go", LineNumber: 4, ErrorType: contract.ErrTypeError, Message: "undefined: x", Tool: "go"}
	warning := contract.BugReport{FilePath: "calc.go", LineNumber: 9, ErrorType: contract.ErrLinting, Message: "unused", Tool: "go vet", Severity: "warning"}
	noName := contract.BugReport{FilePath: "main.c", LineNumber: 9, ErrorType: contract.ErrLogic, Message: "Assertion failed", Tool: "assert"}
	goDefault := "go build ./... && go vet ./... && go test ./..."
	many := func(n int) []contract.BugReport {
		var out []contract.BugReport
		for i := range n {
			out = append(out, fail("go test", "calc_test.go", fmt.Sprintf("TestCase%d", i)))
		}
		return out
	}
	tests := []struct {
		name, command, project string
		bugs                   []contract.BugReport
		want                   Plan
	}{
		{"nothing failed", "go test ./...", "go", nil, Plan{}},
		{"a compile error is not flaky", goDefault, "go",
			[]contract.BugReport{fail("go test", "calc_test.go", "TestAdd"), compile}, Plan{}},
		{"a failure outside any test is not flaky", "make test", "make", []contract.BugReport{noName}, Plan{}},
		{"go, the executor's default command", goDefault, "go",
			[]contract.BugReport{fail("go test", "calc_test.go", "TestAdd"), warning},
			Plan{Command: `go test -count=1 -v -run '^TestAdd$' '.'`, Tests: []string{"TestAdd"}, Narrowed: true, Runner: "go"}},
		{"go, two packages, subtests by their parent, flags kept", "go test -race -tags 'x y' -tags=integration -count=3 ./...", "go",
			[]contract.BugReport{fail("go test", "internal/money/round_test.go", "TestRound/half_even"),
				fail("go test", "internal/money/round_test.go", "TestRound/half_up"),
				fail("go test", "api/handler_test.go", "TestServe")},
			Plan{Command: `go test -count=1 -v -race -tags=integration -run '^(TestRound|TestServe)$' './api' './internal/money'`,
				Tests: []string{"TestRound", "TestServe"}, Narrowed: true, Runner: "go"}},
		{"go, a panic located in the code under test runs every package", "make test", "go",
			[]contract.BugReport{fail("go", "internal/money/round.go", "TestRound")},
			Plan{Command: `go test -count=1 -v -run '^TestRound$' './...'`, Tests: []string{"TestRound"}, Narrowed: true, Runner: "go"}},
		{"go, a hostile name re-runs everything", goDefault, "go",
			[]contract.BugReport{fail("go test", "calc_test.go", "TestAdd"), fail("go test", "calc_test.go", "Test$(rm -rf ~)")},
			Plan{Command: goDefault, Tests: []string{"TestAdd", "Test$(rm -rf ~)"}, Runner: "go"}},
		{"go, more than 50 tests re-runs everything", "go test ./...", "go", many(51),
			Plan{Command: "go test ./...", Tests: func() []string {
				var s []string
				for i := range 50 {
					s = append(s, fmt.Sprintf("TestCase%d", i))
				}
				return s
			}(), Runner: "go"}},
		{"pytest by node id", "pip install -e . && python -m pytest -q", "python",
			[]contract.BugReport{fail("pytest", "tests/test_calc.py", "TestCalc.test_add[1-2]"), fail("pytest", "tests/test_calc.py", "test_sub")},
			Plan{Command: `python -m pytest -v 'tests/test_calc.py::TestCalc::test_add[1-2]' 'tests/test_calc.py::test_sub'`,
				Tests: []string{"tests/test_calc.py::TestCalc::test_add[1-2]", "tests/test_calc.py::test_sub"}, Narrowed: true, Runner: "pytest"}},
		{"pytest by -k when a failure is located in the code", "pytest", "python",
			[]contract.BugReport{fail("pytest", "calc/core.py", "TestCalc.test_add"), fail("pytest", "tests/test_calc.py", "test_sub")},
			Plan{Command: `pytest -v -k 'test_add or test_sub'`, Tests: []string{"test_add", "test_sub"}, Narrowed: true, Runner: "pytest"}},
		{"unittest discover", "python3 -m unittest discover -s tests -v", "python",
			[]contract.BugReport{fail("unittest", "leapyear.py", "test_century")},
			Plan{Command: `python3 -m unittest discover -s tests -v -k '*.test_century'`, Tests: []string{"test_century"}, Narrowed: true, Runner: "unittest"}},
		{"unittest of named modules", "python3 -m unittest -v tests.test_recipes tests/test_more.py", "python",
			[]contract.BugReport{fail("unittest", "tests/test_recipes.py", "test_happy_path")},
			Plan{Command: `python3 -m unittest tests.test_recipes tests/test_more.py -v -k '*.test_happy_path'`, Tests: []string{"test_happy_path"}, Narrowed: true, Runner: "unittest"}},
		{"unittest of a name salve does not copy", "python3 -m unittest -v 'tests.test_$(x)'", "python",
			[]contract.BugReport{fail("unittest", "tests/test_recipes.py", "test_happy_path")},
			Plan{Command: `python3 -m unittest -v -k '*.test_happy_path'`, Tests: []string{"test_happy_path"}, Narrowed: true, Runner: "unittest"}},
		{"unittest from make", "make check", "python",
			[]contract.BugReport{fail("unittest", "leapyear.py", "test_century"), fail("unittest", "leapyear.py", "test_plain")},
			Plan{Command: `python3 -m unittest discover -v -k '*.test_century' -k '*.test_plain'`, Tests: []string{"test_century", "test_plain"}, Narrowed: true, Runner: "unittest"}},
		{"jest through npm test", "npm run build && npm test", "node",
			[]contract.BugReport{fail("jest", "src/chunk.test.js", "chunk › splits (evenly) into 2")},
			Plan{Command: `npm test -- -t '^chunk splits \(evenly\) into 2$' 'src/chunk.test.js'`, Tests: []string{"chunk splits (evenly) into 2"}, Narrowed: true, Runner: "jest"}},
		{"jest with the failure located in the code", "npx jest --ci", "node",
			[]contract.BugReport{fail("jest", "src/chunk.js", "splits"), fail("jest", "src/chunk.test.js", "joins")},
			Plan{Command: `npx jest -t '^(splits|joins)$'`, Tests: []string{"splits", "joins"}, Narrowed: true, Runner: "jest"}},
		{"jest, a test file jest would read as another", "npx jest", "node",
			[]contract.BugReport{fail("jest", "src/c++.test.js", "compiles")},
			Plan{Command: `npx jest -t '^compiles$'`, Tests: []string{"compiles"}, Narrowed: true, Runner: "jest"}},
		{"vitest", "vitest run", "node",
			[]contract.BugReport{fail("vitest", "test/slug.test.ts", "slugify > drops accents")},
			Plan{Command: `vitest run -t '^slugify drops accents$' 'test/slug.test.ts'`, Tests: []string{"slugify drops accents"}, Narrowed: true, Runner: "vitest"}},
		{"mocha", "yarn test", "node",
			[]contract.BugReport{fail("mocha", "lib/queue.js", "drains the queue")},
			Plan{Command: `yarn test --grep 'drains the queue'`, Tests: []string{"drains the queue"}, Narrowed: true, Runner: "mocha"}},
		{"node test runner", "npm test", "node",
			[]contract.BugReport{fail("node:test", "test/math.test.mjs", "adds two numbers")},
			Plan{Command: `node --test --test-name-pattern='adds two numbers' 'test/math.test.mjs'`, Tests: []string{"adds two numbers"}, Narrowed: true, Runner: "node"}},
		{"a node report decided by the command", "npx mocha", "node",
			[]contract.BugReport{fail("node", "lib/queue.js", "drains")},
			Plan{Command: `npx mocha --grep 'drains'`, Tests: []string{"drains"}, Narrowed: true, Runner: "mocha"}},
		{"a hostile JavaScript name", "npm test", "node",
			[]contract.BugReport{fail("jest", "a.test.js", "it's `fine`")},
			Plan{Command: "npm test", Tests: []string{"it's `fine`"}, Runner: "jest"}},
		{"cargo", "cargo build && cargo test -p ledger --all-features", "rust",
			[]contract.BugReport{fail("cargo test", "src/lib.rs", "tests::balance_sums"), fail("cargo test", "src/lib.rs", "tests::empty")},
			Plan{Command: `cargo test -p ledger --all-features -- --exact 'tests::balance_sums' 'tests::empty'`, Tests: []string{"tests::balance_sums", "tests::empty"}, Narrowed: true, Runner: "cargo"}},
		{"maven", "./mvnw -B verify", "maven",
			[]contract.BugReport{fail("java", "src/test/java/com/acme/RangeTest.java", "overlapsAtEdge"), fail("java", "src/main/java/com/acme/Range.java", "contains")},
			Plan{Command: `./mvnw -B test -Dtest='RangeTest#overlapsAtEdge,*#contains' -Dsurefire.failIfNoSpecifiedTests=false`,
				Tests: []string{"RangeTest#overlapsAtEdge", "*#contains"}, Narrowed: true, Runner: "maven"}},
		{"gradle", "./gradlew build --no-daemon", "gradle",
			[]contract.BugReport{fail("gradle", "src/test/kotlin/RangeTest.kt", "overlaps")},
			Plan{Command: `./gradlew test --tests 'RangeTest.overlaps' --no-daemon`, Tests: []string{"RangeTest.overlaps"}, Narrowed: true, Runner: "gradle"}},
		{"dotnet", "dotnet build && dotnet test", "unknown",
			[]contract.BugReport{fail("dotnet test", "Tests/RangeTests.cs", "Acme.Tests.RangeTests.Overlaps")},
			Plan{Command: `dotnet test --filter 'FullyQualifiedName~Acme.Tests.RangeTests.Overlaps'`, Tests: []string{"Acme.Tests.RangeTests.Overlaps"}, Narrowed: true, Runner: "dotnet"}},
		{"a runner that cannot select tests", "make check", "make",
			[]contract.BugReport{fail("googletest", "test/vec_test.cc", "Vec.Push")},
			Plan{Command: "make check", Tests: []string{"Vec.Push"}}},
		{"failures of two runners", "make all", "multi",
			[]contract.BugReport{fail("go test", "a_test.go", "TestA"), fail("jest", "b.test.js", "b")},
			Plan{Command: "make all", Tests: []string{"TestA", "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := For(tt.command, tt.project, tt.bugs)
			if got.Narrowed && got.Runner != "dotnet" && got.Proof == "" {
				t.Errorf("a narrowed %s plan has no proof command", got.Runner)
			}
			got.Proof, got.Direct, got.bin = "", false, goBinary{} // TestProof, TestDirect and TestBinaryProof check them
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("For(%q) =\n  %#v\nwant\n  %#v", tt.command, got, tt.want)
			}
			if (got.Command == "") != (len(got.Tests) == 0) {
				t.Errorf("Command %q with %d tests", got.Command, len(got.Tests))
			}
		})
	}
}

func TestRunnerTable(t *testing.T) {
	seen := map[string]bool{}
	tools := map[string]string{}
	for _, r := range runners {
		if r.name == "" || seen[r.name] || r.build == nil || len(r.launchers) == 0 {
			t.Errorf("bad row %q", r.name)
		}
		seen[r.name] = true
		for _, tool := range r.tools {
			if prev, dup := tools[tool]; dup {
				t.Errorf("tool %q in %s and %s", tool, prev, r.name)
			}
			if _, dup := shared[tool]; dup {
				t.Errorf("tool %q is both shared and %s's", tool, r.name)
			}
			tools[tool] = r.name
		}
	}
	for tool, names := range shared {
		for _, n := range names {
			if runnerNamed(n) == nil {
				t.Errorf("shared tool %q names no runner %q", tool, n)
			}
		}
	}
}

func TestRan(t *testing.T) {
	p := Plan{Command: "x", Tests: []string{"TestRound", "tests/test_calc.py::TestCalc::test_add[1-2]", "RangeTest#overlaps"}}
	if !p.Ran("=== RUN TestRound\n... test_add[1] PASSED\novrl overlaps ok") {
		t.Error("Ran = false with every name printed")
	}
	if p.Ran("=== RUN TestRound\n") {
		t.Error("Ran = true with names missing")
	}
	if (Plan{Command: "x", Tests: []string{"adds"}}).Ran("# Subtest: adds\nok 1 - adds # SKIP test name does not match pattern\n") {
		t.Error("Ran = true when the test was skipped")
	}
	if (Plan{}).Ran("anything") {
		t.Error("the zero plan ran")
	}
}

func TestSplitCommand(t *testing.T) {
	got := splitCommand(`A=1 go build ./... && go test -tags 'a b' ./...; echo "x && y"|cat`)
	want := [][]string{{"A=1", "go", "build", "./..."}, {"go", "test", "-tags", "'a b'", "./..."}, {"echo", `"x && y"`}, {"cat"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("splitCommand = %q, want %q", got, want)
	}
	if _, rest, ok := findInvocation(got, [][]string{{"go", "build"}}); !ok || strings.Join(rest, " ") != "./..." {
		t.Errorf("findInvocation skips env assignments: %v %q", ok, rest)
	}
}

func ExampleFor() {
	name := "TestPages/rounds_up"
	bugs := []contract.BugReport{{
		FilePath: "paginate/page_test.go", LineNumber: 12, ErrorType: contract.ErrLogic,
		Message: "Pages(11, 10) = 1, want 2", TestName: &name, Tool: "go test",
	}}
	p := For("go build ./... && go vet ./... && go test ./...", "go", bugs)
	fmt.Println(p.Command)
	fmt.Println(p.Tests, p.Narrowed, p.Runner)
	// Output:
	// go test -count=1 -v -run '^TestPages$' './paginate'
	// [TestPages] true go
}

// TestDirect says when the whole command's own output may stand as the
// proof's evidence: the command is one step running the runner itself,
// and the runner's row allows it.
func TestDirect(t *testing.T) {
	tests := []struct {
		name, command, project string
		bug                    contract.BugReport
		want                   bool
	}{
		{"go test alone", "go test ./...", "go", fail("go test", "calc_test.go", "TestAdd"), true},
		{"go test after its variables", "CGO_ENABLED=0 go test -json ./...", "go", fail("go test", "calc_test.go", "TestAdd"), true},
		{"go test among other steps", "go build ./... && go vet ./... && go test ./...", "go", fail("go test", "calc_test.go", "TestAdd"), false},
		{"node --test alone", "node --test", "node", fail("node:test", "series.test.js", "last of three"), true},
		{"node through npm's script", "npm test", "node", fail("node:test", "series.test.js", "last of three"), false},
		{"unittest", "python3 -m unittest discover -v", "python", fail("unittest", "test_calc.py", "test_add"), true},
		{"pytest after a cd", "cd app && pytest -q", "python", fail("pytest", "tests/test_calc.py", "test_add"), false},
		{"maven", "./mvnw -B verify", "maven", fail("java", "src/test/java/com/acme/RangeTest.java", "overlaps"), true},
		{"dotnet reads nothing", "dotnet test", "unknown", fail("dotnet test", "Tests/RangeTests.cs", "Acme.Tests.RangeTests.Overlaps"), false},
		{"a runner that cannot select tests", "make check", "make", fail("googletest", "test/vec_test.cc", "Vec.Push"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := For(tt.command, tt.project, []contract.BugReport{tt.bug})
			if p.Direct != tt.want {
				t.Errorf("For(%q).Direct = %v, want %v (plan %+v)", tt.command, p.Direct, tt.want, p)
			}
			if p.Direct && p.Proof == "" {
				t.Errorf("a direct plan without a proof command: %+v", p)
			}
		})
	}
}

func TestStructured(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		{"go test ./...", "go test -json ./..."},
		{"  go test -race -count=1 ./pkg/... ", "go test -json -race -count=1 ./pkg/..."},
		{"go test", "go test -json"},
		{"go test -run 'TestA/case_1' ./...", "go test -json -run 'TestA/case_1' ./..."},
		{"go test ./... -args -json", "go test -json ./... -args -json"}, // the test binary's own flag
		// Already structured, or -json would change what the command does.
		{"go test -json ./...", ""},
		{"go test --json ./...", ""},
		{"go test -json=true ./...", ""},
		{"go test -c ./pkg", ""},
		{"go test -list . ./...", ""},
		{"go test -o bin/t ./pkg", ""},
		{"go test -fuzz=FuzzParse ./pkg", ""},
		{"go test -run c ./...", "go test -json -run c ./..."}, // a flag's value is no flag
		// Not go test alone: another program could print beside it, or
		// the output goes elsewhere.
		{"go vet ./... && go test ./...", ""},
		{"go test ./... | tee log", ""},
		{"go test ./... > out.txt", ""},
		{"go test ./...; echo done", ""},
		{"CGO_ENABLED=0 go test ./...", ""},
		{"go test $(go list ./...)", ""},
		{"go test -run 'TestA|TestB' ./...", ""}, // a shell character, even quoted: run as written
		{"go testing", ""},
		{"go build ./...", ""},
		{"make test", ""},
		{"pytest -q", ""},
		{"", ""},
	} {
		if got := Structured(tc.command); got != tc.want {
			t.Errorf("Structured(%q) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

func TestInPackages(t *testing.T) {
	// A failure located in the code under test: the plan runs ./...
	panicked := []contract.BugReport{fail("go test", "series/series.go", "TestLast")}
	const failLog = `{"Action":"start","Package":"example.com/m/series"}
{"Action":"run","Package":"example.com/m/series","Test":"TestLast"}
{"Action":"output","Package":"example.com/m/series","Test":"TestLast","Output":"--- FAIL: TestLast (0.00s)\n"}
{"Action":"fail","Package":"example.com/m/series","Test":"TestLast"}
{"Action":"fail","Package":"example.com/m/series"}
{"Action":"pass","Package":"example.com/m/other"}
`
	for _, tc := range []struct {
		name, log, command, proof string
	}{
		{"narrowed to the failing package", failLog,
			"go test -count=1 -v -run '^TestLast$' 'example.com/m/series'",
			"go test -count=1 -json -run '^TestLast$' 'example.com/m/series'"},
		{"a plain log says no package", "--- FAIL: TestLast (0.00s)\nFAIL\texample.com/m/series\t0.01s\n",
			"go test -count=1 -v -run '^TestLast$' './...'", "go test -count=1 -json -run '^TestLast$' './...'"},
		{"the test failed nowhere the log shows", strings.ReplaceAll(failLog, `"Test":"TestLast"}`, `"Test":"TestFirst"}`),
			"go test -count=1 -v -run '^TestLast$' './...'", "go test -count=1 -json -run '^TestLast$' './...'"},
		{"a package name that is no import path", strings.ReplaceAll(failLog, "example.com/m/series", "-exec=sh"),
			"go test -count=1 -v -run '^TestLast$' './...'", "go test -count=1 -json -run '^TestLast$' './...'"},
	} {
		p := For("go test ./...", "go", panicked).InPackages(tc.log)
		if p.Command != tc.command || p.Proof != tc.proof {
			t.Errorf("%s:\n command %q\n want    %q\n proof   %q\n want    %q", tc.name, p.Command, tc.command, p.Proof, tc.proof)
		}
	}
	// A plan already narrowed by the reports' test files is left alone.
	inTest := []contract.BugReport{fail("go test", "series/series_test.go", "TestLast")}
	if p := For("go test ./...", "go", inTest).InPackages(failLog); p.Command != "go test -count=1 -v -run '^TestLast$' './series'" {
		t.Errorf("plan of a test file's report = %q", p.Command)
	}
}
