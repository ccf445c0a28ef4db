package heal

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
)

func TestNewlyRed(t *testing.T) {
	test := func(file, name string) contract.BugReport {
		return contract.BugReport{FilePath: file, LineNumber: 3, ErrorType: contract.ErrLogic, Message: name + " failed", TestName: &name}
	}
	compile := contract.BugReport{FilePath: "calc.go", LineNumber: 9, ErrorType: contract.ErrTypeError, Message: "undefined: x"}
	for _, tc := range []struct {
		name          string
		before, after []contract.BugReport
		want          []string
	}{
		{"the same test still red", []contract.BugReport{test("calc_test.go", "TestAdd")}, []contract.BugReport{test("calc_test.go", "TestAdd")}, nil},
		{"another test turned red", []contract.BugReport{test("calc_test.go", "TestAdd")}, []contract.BugReport{test("calc_test.go", "TestSub")}, []string{"TestSub (calc_test.go)"}},
		{"same name in another file", []contract.BugReport{test("a_test.go", "TestX")}, []contract.BugReport{test("b_test.go", "TestX")}, []string{"TestX (b_test.go)"}},
		{"a compile error hid the tests", []contract.BugReport{compile}, []contract.BugReport{test("calc_test.go", "TestSub")}, nil},
		{"a new compile error is not a test", []contract.BugReport{test("calc_test.go", "TestAdd")}, []contract.BugReport{compile}, nil},
		{"warnings do not count", []contract.BugReport{test("calc_test.go", "TestAdd"), {FilePath: "x.go", ErrorType: contract.ErrTypeError, Severity: "warning"}}, []contract.BugReport{test("calc_test.go", "TestSub")}, []string{"TestSub (calc_test.go)"}},
		{"named once", []contract.BugReport{test("calc_test.go", "TestAdd")}, []contract.BugReport{test("calc_test.go", "TestSub"), test("calc_test.go", "TestSub")}, []string{"TestSub (calc_test.go)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newlyRed(tc.before, tc.after); !slices.Equal(got, tc.want) {
				t.Errorf("newlyRed = %q, want %q", got, tc.want)
			}
		})
	}
}

// What go test -json prints for a run of TestAdd failing, and passing
// (the flaky re-run, the proof run, a verify of the runner alone).
const (
	goFailJSON = `{"Action":"run","Package":"add","Test":"TestAdd"}
{"Action":"output","Package":"add","Test":"TestAdd","Output":"--- FAIL: TestAdd (0.00s)\n"}
{"Action":"fail","Package":"add","Test":"TestAdd"}
{"Action":"output","Package":"add","Output":"FAIL\n"}
{"Action":"fail","Package":"add"}
`
	goPassJSON = `{"Action":"run","Package":"add","Test":"TestAdd"}
{"Action":"pass","Package":"add","Test":"TestAdd"}
{"Action":"output","Package":"add","Output":"PASS\n"}
{"Action":"pass","Package":"add"}
`
)

// TestProofGate: a fix of a failing test is committed only when the
// runner's own output proves the test passing to the runner's end.
func TestProofGate(t *testing.T) {
	const failLog = "=== RUN   TestAdd\n--- FAIL: TestAdd (0.00s)\nFAIL\n"
	// What go test -json prints when an init exits 0 before any test.
	const exitJSON = `{"Action":"output","Package":"add","Output":"ok  \tadd\t0.01s\n"}
{"Action":"pass","Package":"add"}
`
	for _, tc := range []struct {
		name, command, proof string
		accept               bool
		outcome              string
		proven               bool
		why                  string
	}{
		{"proven", "go test ./...", goPassJSON, false, results.OutcomeGreen, true, ""},
		{"the test never ran", "go test ./...", exitJSON, false, results.OutcomeRed, false, "unproven-pass: the test runner did not reach its normal end"},
		{"unproven, accepted", "go test ./...", exitJSON, true, results.OutcomeGreen, false, ""},
		{"a runner salve cannot read", "make check", "", false, results.OutcomeRed, false, "unproven-pass: the test runner's output cannot prove"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			builds := 0
			ex := fakeExecutor{func(_ context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
				builds++
				log := failLog
				switch {
				case strings.Contains(in.ResolvedBuildCommand, "-json") && builds <= 2:
					log = goFailJSON // the re-run before any fix
				case strings.Contains(in.ResolvedBuildCommand, "-json"):
					log = tc.proof
				case builds > 2:
					log = "ok\n" // the verification build passes
				}
				out := contract.ExecutorOutput{BuildLog: log}
				if strings.Contains(log, "FAIL") || strings.Contains(log, `"Action":"fail"`) {
					out.ExitCode = 1
				}
				return out, nil
			}}
			parser := testParser{}
			if tc.command == "make check" {
				parser.tool = "googletest"
			}
			res := healAdd(t, ex, parser, tc.command, tc.accept, tc.outcome)
			if len(res.Proofs) == 0 {
				t.Fatalf("no proof recorded: %+v", res)
			}
			p := res.Proofs[len(res.Proofs)-1]
			if p.Kind != "tests" || p.Proven != tc.proven || p.AcceptedUnproven != (tc.accept && !tc.proven) {
				t.Errorf("proof %+v", p)
			}
			if tc.proven && (p.Format != "go-test-json" || len(p.Passed) != 1 || !p.Completed) {
				t.Errorf("proof %+v", p)
			}
			if tc.why != "" && !strings.Contains(bugsText(res), tc.why) {
				t.Errorf("no bug says %q: %s", tc.why, bugsText(res))
			}
		})
	}
}

// healAdd heals a module whose Add subtracts, with ex's builds and the
// command given, and checks the outcome, and that a fix was committed
// exactly when it is green.
func healAdd(t *testing.T, ex Executor, parser Parser, command string, accept bool, outcome string) *results.Results {
	t.Helper()
	repo := newRepo(t, map[string]string{"add.go": "package add\n\nfunc Add(a, b int) int { return a - b }\n"})
	o, g := baseOptions(t, repo, &fakeFixer{name: "f", fix: fixBug(0.9)})
	o.Executor, o.Parser, o.Command, o.AcceptUnproven = ex, parser, command, accept
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != outcome {
		t.Fatalf("outcome %q (%s), want %q", res.Outcome, res.Reason, outcome)
	}
	if (outcome == results.OutcomeGreen) != (len(g.commits) > 0) {
		t.Errorf("%d commits for outcome %s", len(g.commits), res.Outcome)
	}
	return res
}

// bugsText joins every bug's line, reason and attempts' reasons.
func bugsText(res *results.Results) string {
	var b strings.Builder
	for _, bug := range res.Bugs {
		b.WriteString(bug.Line + "\n" + bug.Reason + "\n")
		for _, a := range bug.Attempts {
			b.WriteString(a.Reason + "\n")
		}
	}
	return b.String() + res.Reason
}

// TestProofFromVerify: when the user's command is the runner alone and
// prints the runner's structured output, the verify build's own output
// proves the pass and no proof run follows; whenever it does not prove
// it (a test missing, a run cut short, a command of several steps), the
// proof run is made and decides, as before.
func TestProofFromVerify(t *testing.T) {
	const allJSON = `{"Action":"run","Package":"add","Test":"TestAdd"}
{"Action":"pass","Package":"add","Test":"TestAdd"}
{"Action":"run","Package":"add","Test":"TestSub"}
{"Action":"pass","Package":"add","Test":"TestSub"}
{"Action":"output","Package":"add","Output":"PASS\n"}
{"Action":"pass","Package":"add"}
`
	const otherJSON = `{"Action":"run","Package":"add","Test":"TestSub"}
{"Action":"pass","Package":"add","Test":"TestSub"}
{"Action":"pass","Package":"add"}
`
	const cutJSON = `{"Action":"run","Package":"add","Test":"TestAdd"}
{"Action":"pass","Package":"add","Test":"TestAdd"}
`
	for _, tc := range []struct {
		name, command, verify, proof string
		outcome                      string
		proofRuns                    int
		// ran is the command the builds run, when not the user's.
		ran string
	}{
		{"the verify proves", "go test -json ./...", allJSON, "", results.OutcomeGreen, 0, ""},
		{"the failing test is not in the verify", "go test -json ./...", otherJSON, goPassJSON, results.OutcomeGreen, 1, ""},
		{"the verify stopped early", "go test -json ./...", cutJSON, goPassJSON, results.OutcomeGreen, 1, ""},
		{"the verify stopped early and so did the proof", "go test -json ./...", cutJSON, cutJSON, results.OutcomeRed, 1, ""},
		{"a command of several steps", "go vet ./... && go test -json ./...", allJSON, goPassJSON, results.OutcomeGreen, 1, ""},
		// go test alone runs with -json (rerun.Structured): the verify
		// then names every test it ran.
		{"plain go test runs with -json", "go test ./...", allJSON, "", results.OutcomeGreen, 0, "go test -json ./..."},
		{"plain output", "CGO_ENABLED=0 go test ./...", "ok  \tadd\t0.01s\n", goPassJSON, results.OutcomeGreen, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reruns, builds int
			ran := tc.command
			if tc.ran != "" {
				ran = tc.ran
			}
			ex := fakeExecutor{func(_ context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
				var log string
				if !strings.Contains(in.ResolvedBuildCommand, "-run") && in.ResolvedBuildCommand != ran {
					t.Errorf("a build ran %q, want %q", in.ResolvedBuildCommand, ran)
				}
				if strings.Contains(in.ResolvedBuildCommand, "-run") {
					reruns++
					log = goFailJSON // the re-run before any fix
					if reruns > 1 {
						log = tc.proof
					}
				} else {
					builds++
					log = goFailJSON // the failing build
					if builds > 1 {
						log = tc.verify
					}
				}
				out := contract.ExecutorOutput{BuildLog: log}
				if strings.Contains(log, "--- FAIL") {
					out.ExitCode = 1
				}
				return out, nil
			}}
			res := healAdd(t, ex, testParser{}, tc.command, false, tc.outcome)
			if got := reruns - 1; got != tc.proofRuns {
				t.Errorf("%d proof runs, want %d", got, tc.proofRuns)
			}
			proofBuilds := 0
			for _, b := range res.Builds {
				if b.Stage == results.StageProof {
					proofBuilds++
				}
			}
			if proofBuilds != tc.proofRuns {
				t.Errorf("results list %d proof builds, want %d", proofBuilds, tc.proofRuns)
			}
			if len(res.Proofs) != 1 {
				t.Fatalf("proofs %+v, want one", res.Proofs)
			}
			p := res.Proofs[0]
			if p.Proven != (tc.outcome == results.OutcomeGreen) || p.Format != "go-test-json" {
				t.Errorf("proof %+v", p)
			}
			if wantCmd := ran; tc.proofRuns == 0 && p.Command != wantCmd {
				t.Errorf("proof command %q, want the verify's %q", p.Command, wantCmd)
			} else if tc.proofRuns > 0 && !strings.Contains(p.Command, "-run") {
				t.Errorf("proof command %q, want the proof run's", p.Command)
			}
		})
	}
}
