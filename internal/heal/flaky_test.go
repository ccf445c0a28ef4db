package heal

import (
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

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
