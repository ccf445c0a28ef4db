package publish

import (
	"fmt"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/report"
	"github.com/salve-dev/salve/internal/heal/results"
)

// TestFailingReportsFixes: reports are listed once each, and each change
// of a fix's diff goes to the fixed report nearest to it, as line edits.
func TestFailingReportsFixes(t *testing.T) {
	diff := "--- a/main.go\n+++ b/main.go\n@@ -1,12 +1,12 @@\n package publish\n \n-import \"os\"\n+import \"strings\"\n \n" +
		" func a() {}\n func b() {}\n func c() {}\n func d() {}\n-\tx:=1\n+\tx := 1\n"
	imp := contract.BugReport{FilePath: "main.go", LineNumber: 3, ErrorType: contract.ErrImport, Message: "undefined: strings"}
	fmtBug := contract.BugReport{FilePath: "main.go", LineNumber: 9, ErrorType: contract.ErrLinting, Message: "not gofmt"}
	left := contract.BugReport{FilePath: "util.go", LineNumber: 2, ErrorType: contract.ErrLogic, Message: "wrong"}
	res := &results.Results{
		Bugs: []results.BugResult{
			{Bug: imp, Status: results.StatusFailed},
			{Bug: imp, Status: results.StatusFixed, Diff: diff, Line: "IMPORT fixed"},
			{Bug: fmtBug, Status: results.StatusFixed, Diff: diff, Line: "LINTING fixed"},
		},
		Remaining: []contract.BugReport{left, fmtBug},
	}
	reports, fixes, lines := FailingReports(res)
	if len(reports) != 3 || reports[2] != left {
		t.Fatalf("reports %+v", reports)
	}
	want := map[int][]report.Fix{
		0: {{StartLine: 3, EndLine: 3, Lines: []string{`import "strings"`}}},
		1: {{StartLine: 9, EndLine: 9, Lines: []string{"\tx := 1"}}},
	}
	if fmt.Sprint(fixes) != fmt.Sprint(want) {
		t.Errorf("fixes %v, want %v", fixes, want)
	}
	if lines[0] != "IMPORT fixed" || lines[1] != "LINTING fixed" || len(lines) != 2 {
		t.Errorf("lines %v", lines)
	}
}

// TestCheckConclusions: every outcome of a heal has a check conclusion.
func TestCheckConclusions(t *testing.T) {
	for _, o := range []string{results.OutcomeGreen, results.OutcomeRed, results.OutcomeNoSignal, results.OutcomeEnvironment,
		results.OutcomeFlaky, results.OutcomeInterrupted, results.OutcomeError} {
		if checkConclusion[o] == "" {
			t.Errorf("outcome %q has no check conclusion", o)
		}
		if CheckTitle(&results.Results{Outcome: o, Reason: "r"}) == "" {
			t.Errorf("outcome %q has no title", o)
		}
	}
}

// TestOpens: when a request is opened is one rule, for every door.
func TestOpens(t *testing.T) {
	green := results.Results{Outcome: results.OutcomeGreen, Pushed: true, Commits: []results.Commit{{}}}
	tests := []struct {
		name       string
		o          Options
		res        results.Results
		opens, fge bool
	}{
		{"green with commits", Options{Request: true}, green, true, true},
		{"not asked", Options{}, green, false, false},
		{"not pushed", Options{Request: true}, results.Results{Outcome: results.OutcomeGreen, Commits: []results.Commit{{}}}, false, false},
		{"green without a fix", Options{Request: true}, results.Results{Outcome: results.OutcomeGreen, Pushed: true}, false, false},
		{"red", Options{Request: true}, results.Results{Outcome: results.OutcomeRed, Pushed: true}, false, false},
		{"red with OnRed", Options{Request: true, OnRed: true}, results.Results{Outcome: results.OutcomeRed, Pushed: true}, true, true},
		{"a check run needs the forge", Options{CheckRun: true}, results.Results{Outcome: results.OutcomeRed}, false, true},
		{"a review needs the forge", Options{Review: true}, green, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.Opens(&tc.res); got != tc.opens {
				t.Errorf("Opens = %v, want %v", got, tc.opens)
			}
			if got := tc.o.NeedsForge(&tc.res); got != tc.fge {
				t.Errorf("NeedsForge = %v, want %v", got, tc.fge)
			}
		})
	}
}
