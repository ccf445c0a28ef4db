package heal

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/heal/undertest"

	"github.com/salve-dev/salve/contract"
)

// testParser reports one failing go test, as logparse does, whenever the
// log says FAIL.
type testParser struct {
	noEnv
	tool string // the report's tool; empty means go test
}

func (p testParser) Parse(log, _ string) []contract.BugReport {
	if !strings.Contains(log, "--- FAIL") {
		return nil
	}
	name, tool := "TestAdd", p.tool
	if tool == "" {
		tool = "go test"
	}
	return []contract.BugReport{{FilePath: "add.go", LineNumber: 3, ErrorType: contract.ErrLogic, Message: "Add(1, 2) = -1, want 3", TestName: &name, Tool: tool}}
}

func TestFlakyVerdict(t *testing.T) {
	const fail, pass = "=== RUN   TestAdd\n--- FAIL: TestAdd (0.00s)\nFAIL\n", "=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\nok\n"
	const noTestJSON = `{"Action":"output","Package":"add","Output":"ok  \tadd\t0.01s\n"}
{"Action":"pass","Package":"add"}
`
	for _, tc := range []struct {
		name    string
		rerun   string // the re-run's log; it fails when it says FAIL
		outcome string
		fixed   bool
	}{
		{"passes on a re-run", goPassJSON, results.OutcomeFlaky, false},
		{"fails again", goFailJSON, results.OutcomeGreen, true},
		{"passes without running the test", noTestJSON, results.OutcomeGreen, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, map[string]string{"add.go": "package add\n\nfunc Add(a, b int) int { return a - b }\n"})
			var commands []string
			ex := fakeExecutor{func(_ context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
				commands = append(commands, in.ResolvedBuildCommand)
				log := fail
				switch {
				case strings.Contains(in.ResolvedBuildCommand, "-run") && len(commands) == 2:
					log = tc.rerun // the re-run before any fix
				case strings.Contains(in.ResolvedBuildCommand, "-run"):
					log = goPassJSON // the proof after the fix
				case len(commands) > 2:
					log = pass // the fix's verification build
				}
				out := contract.ExecutorOutput{BuildLog: log}
				if strings.Contains(log, "FAIL") || strings.Contains(log, `"Action":"fail"`) {
					out.ExitCode = 1
				}
				return out, nil
			}}
			fixer := &fakeFixer{name: "f", fix: fixBug(0.9)}
			o, g := baseOptions(t, repo, fixer)
			o.Executor, o.Parser, o.Command = ex, testParser{}, "go test ./..."
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %q (%s), want %q; commands %q", res.Outcome, res.Reason, tc.outcome, commands)
			}
			if len(commands) < 2 || !strings.Contains(commands[1], "-run '^TestAdd$'") {
				t.Errorf("the second build did not re-run only TestAdd: %q", commands)
			}
			if tc.fixed != (len(fixer.seen) > 0) || tc.fixed != (len(g.commits) > 0) {
				t.Errorf("fixer called %d times, %d commits; want a fix: %v", len(fixer.seen), len(g.commits), tc.fixed)
			}
			if tc.outcome != results.OutcomeFlaky {
				return
			}
			if strings.Join(res.Flaky, ",") != "TestAdd" || !strings.Contains(res.Reason, "TestAdd") {
				t.Errorf("flaky tests %q, reason %q", res.Flaky, res.Reason)
			}
			if rate := res.ByType[string(contract.ErrLogic)]; rate.Flaky != 1 || rate.Left != 0 {
				t.Errorf("by_type = %+v, want one flaky and none left", rate)
			}
			if len(res.Bugs) != 1 || res.Bugs[0].Status != results.StatusFlaky || !strings.Contains(res.Bugs[0].Line, "flaky") {
				t.Errorf("bugs = %+v", res.Bugs)
			}
		})
	}
}

// binariesExecutor is a fakeExecutor that kept the failing build's test
// binaries (TestBinaries), when bin is set.
type binariesExecutor struct {
	fakeExecutor
	bin string
}

func (b binariesExecutor) GoTestBinary(_, importPath string) (string, bool) {
	return b.bin, b.bin != "" && importPath == "example.com/add"
}

// TestFlakyCheckRunsKeptBinaries: where the Executor kept the failing
// build's test binaries, the flaky check runs the one binary itself
// instead of linking it again with go test; it judges the binary's own
// framed output as it judges go test's, and when that output does not
// show the failing tests running, or there is no binary, it re-runs them
// with go test.
func TestFlakyCheckRunsKeptBinaries(t *testing.T) {
	const failJSON = `{"Action":"run","Package":"example.com/add","Test":"TestAdd"}
{"Action":"output","Package":"example.com/add","Test":"TestAdd","Output":"--- FAIL: TestAdd (0.00s)\n"}
{"Action":"fail","Package":"example.com/add","Test":"TestAdd"}
{"Action":"fail","Package":"example.com/add"}
`
	const mark = "\x16"
	binFail := mark + "=== RUN   TestAdd\n    add_test.go:5: Add(2, 3) = -1\n" + mark + "--- FAIL: TestAdd (0.00s)\n" + mark + "FAIL\n"
	binPanic := mark + "=== RUN   TestAdd\n" + mark + "--- FAIL: TestAdd (0.00s)\npanic: boom\n" // no closing line
	binPass := mark + "=== RUN   TestAdd\n" + mark + "--- PASS: TestAdd (0.00s)\n" + mark + "PASS\n"
	// What a test prints is never the binary's result, in any form.
	binPrinted := "--- PASS: TestAdd (0.00s)\n" + strings.ReplaceAll(goPassJSON, `"add"`, `"example.com/add"`)
	passJSON := strings.ReplaceAll(goPassJSON, `"add"`, `"example.com/add"`)
	const bin = "/cache/kept/go-work/go-build1/b001/add.test"
	for _, tc := range []struct {
		name     string
		bin      string
		rerun    string // the binary's log; "" : it is not run
		binExit  int
		outcome  string
		commands []string // prefixes of the builds' commands, in order
	}{
		{"the binary passes: flaky", bin, binPass, 0, results.OutcomeFlaky,
			[]string{"go test -json ./...", "'" + bin + "' -test.paniconexit0 -test.v=test2json"}},
		{"the binary fails again", bin, binFail, 1, results.OutcomeGreen,
			[]string{"go test -json ./...", "'" + bin + "'", "go test -json ./..."}},
		{"the binary panics: the tests it shows stand", bin, binPanic, 2, results.OutcomeGreen,
			[]string{"go test -json ./...", "'" + bin + "'", "go test -json ./..."}},
		{"the binary shows no test: go test runs them", bin, "panic: in init\n", 2, results.OutcomeGreen,
			[]string{"go test -json ./...", "'" + bin + "'", "go test -count=1 -json -run '^TestAdd$' 'example.com/add'", "go test -json ./..."}},
		{"the binary's tests print results: go test runs them", bin, binPrinted, 0, results.OutcomeGreen,
			[]string{"go test -json ./...", "'" + bin + "'", "go test -count=1 -json -run '^TestAdd$' 'example.com/add'", "go test -json ./..."}},
		{"no binary kept", "", "", 0, results.OutcomeGreen,
			[]string{"go test -json ./...", "go test -count=1 -json -run '^TestAdd$' 'example.com/add'", "go test -json ./..."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, map[string]string{"go.mod": "module example.com/add\n", "add.go": "package add\n\nfunc Add(a, b int) int { return a - b }\n"})
			var commands []string
			ex := binariesExecutor{bin: tc.bin, fakeExecutor: fakeExecutor{func(_ context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
				cmd := in.ResolvedBuildCommand
				commands = append(commands, cmd)
				if strings.HasPrefix(cmd, "'"+bin+"'") {
					return contract.ExecutorOutput{BuildLog: tc.rerun, ExitCode: tc.binExit}, nil
				}
				log := failJSON
				switch {
				case strings.Contains(cmd, "-run") && len(commands) <= 3:
					log = failJSON // go test's re-run before any fix
				case strings.Contains(cmd, "-run"):
					log = passJSON
				case len(commands) > 1:
					log = passJSON // the verify
				}
				out := contract.ExecutorOutput{BuildLog: log}
				if !strings.Contains(log, `"Action":"pass","Package"`) {
					out.ExitCode = 1
				}
				return out, nil
			}}}
			fixer := &fakeFixer{name: "f", fix: fixBug(0.9)}
			o, _ := baseOptions(t, repo, fixer)
			o.Executor, o.Parser, o.Command = ex, testParser{}, "go test ./..."
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %q (%s), want %q; commands %q", res.Outcome, res.Reason, tc.outcome, commands)
			}
			if len(commands) != len(tc.commands) {
				t.Fatalf("commands %q, want %d", commands, len(tc.commands))
			}
			for i, want := range tc.commands {
				if !strings.HasPrefix(commands[i], want) {
					t.Errorf("command %d: %q, want it to start %q", i, commands[i], want)
				}
			}
		})
	}
}

// testFileParser reports the failing TestAdd at its check in add_test.go,
// as a go test failure without a stack is reported: its fix goes to the
// code under test, which the run resolves.
type testFileParser struct{ noEnv }

func (testFileParser) Parse(log, _ string) []contract.BugReport {
	if !strings.Contains(log, `"Action":"fail"`) {
		return nil
	}
	name := "TestAdd"
	return []contract.BugReport{{FilePath: "add_test.go", LineNumber: 6, ErrorType: contract.ErrLogic, Message: "add_test.go:6: Add(1, 2) = -1, want 3", TestName: &name, Tool: "go test"}}
}

// blockingTargets resolves the code under test with the target package,
// and says when it is asked.
type blockingTargets struct {
	fakeTargets
	asked    chan struct{}
	answered chan struct{}
}

func (b blockingTargets) Regions(ctx context.Context, ws string, bug contract.BugReport) ([]undertest.Region, error) {
	close(b.asked)
	defer close(b.answered)
	return b.fakeTargets.Regions(ctx, ws, bug)
}

// TestFixPreparedBesideTheFlakyCheck: the code under test of the first
// failing group is resolved while the failing tests run again (the re-run
// waits until the resolution has been asked for, so a run that prepared
// after the check would never get there); the fixer gets that preparation,
// and a flaky verdict waits for it to end.
func TestFixPreparedBesideTheFlakyCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rerun   string
		outcome string
	}{
		{"fails again", goFailJSON, results.OutcomeGreen},
		{"flaky", goPassJSON, results.OutcomeFlaky},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, map[string]string{
				"go.mod":      "module add\n\ngo 1.22\n",
				"add.go":      "package add\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
				"add_test.go": "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf(\"Add(1, 2) = %d, want 3\", got)\n\t}\n}\n",
			})
			targets := blockingTargets{asked: make(chan struct{}), answered: make(chan struct{})}
			n := 0
			ex := fakeExecutor{func(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
				n++
				log := goFailJSON
				switch {
				case n == 2: // the re-run before any fix
					select {
					case <-targets.asked:
					case <-ctx.Done():
						return contract.ExecutorOutput{}, ctx.Err()
					case <-time.After(time.Minute):
						t.Error("the re-run ended a minute before the code under test was asked for: not prepared beside it")
					}
					log = tc.rerun
				case n > 2:
					log = goPassJSON
				}
				out := contract.ExecutorOutput{BuildLog: log}
				if strings.Contains(log, `"Action":"fail"`) {
					out.ExitCode = 1
				}
				return out, nil
			}}
			fixer := &fakeFixer{name: "f", fix: func(in FixInput) (contract.FixResult, error) {
				return contract.FixResult{PatchedContent: strings.Replace(in.Content, "a - b", "a + b", 1), FixReason: "add", ConfidenceScore: 0.9}, nil
			}}
			o, _ := baseOptions(t, repo, fixer)
			o.Executor, o.Parser, o.Targets, o.Command, o.AcceptUnproven = ex, testFileParser{}, targets, "go test ./...", true
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %q (%s), want %q", res.Outcome, res.Reason, tc.outcome)
			}
			select {
			case <-targets.answered:
			default:
				t.Error("Run returned while the preparation was still running")
			}
			if tc.outcome == results.OutcomeGreen && (len(fixer.seen) != 1 || fixer.seen[0].Path != "add.go") {
				t.Errorf("the fixer saw %d requests (%+v), want one for add.go, the code under test", len(fixer.seen), fixer.seen)
			}
		})
	}
}

// panickingTargets fails as a resolver with a bug would.
type panickingTargets struct{ fakeTargets }

func (panickingTargets) Regions(context.Context, string, contract.BugReport) ([]undertest.Region, error) {
	panic("resolver bug")
}

// TestPreparationPanicReachesTheRun: a panic of the fix preparation, run
// beside the flaky check, is raised again in the run's own goroutine, where
// the binary recovers from it, instead of ending the process.
func TestPreparationPanicReachesTheRun(t *testing.T) {
	repo := newRepo(t, map[string]string{
		"go.mod":      "module add\n\ngo 1.22\n",
		"add.go":      "package add\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"add_test.go": "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf(\"Add(1, 2) = %d, want 3\", got)\n\t}\n}\n",
	})
	ex := fakeExecutor{func(context.Context, contract.ExecutorInput) (contract.ExecutorOutput, error) {
		return contract.ExecutorOutput{BuildLog: goFailJSON, ExitCode: 1}, nil
	}}
	o, _ := baseOptions(t, repo, &fakeFixer{name: "f", fix: fixBug(0.9)})
	o.Executor, o.Parser, o.Targets, o.Command = ex, testFileParser{}, panickingTargets{}, "go test ./..."
	defer func() {
		if v := recover(); v != "resolver bug" {
			t.Errorf("recovered %v, want the resolver's panic", v)
		}
	}()
	_, _ = Run(context.Background(), o)
	t.Error("Run returned")
}
