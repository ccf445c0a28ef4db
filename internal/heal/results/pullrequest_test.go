package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func prResults(outcome string) *Results {
	test := "TestX"
	return &Results{
		RunID: "run-1", Branch: "salve/heal-1", BaseCommit: "0123456789abcdef", Outcome: outcome, Reason: "max iterations (5) reached",
		Command: "go test ./...", Fixers: []string{"rules", "llm"}, Iterations: 2,
		Commits: []Commit{{Hash: "aaa", Files: []string{"main.go"}}},
		Bugs: []BugResult{
			{Bug: contract.BugReport{FilePath: "main.go", LineNumber: 7, ErrorType: contract.ErrImport, Message: `"os" imported and not used`}, Status: StatusFixed, Fixer: "rules",
				FixReason: "removed the unused import", Line: "IMPORT error in main.go line 7 → Fix: removed the unused import",
				Diff: "--- a/main.go\n+++ b/main.go\n@@ -5,3 +5,2 @@\n import (\n-\t\"os\"\n )\n"},
			{Bug: contract.BugReport{FilePath: "calc/sum.go", LineNumber: 3, ErrorType: contract.ErrLogic, Message: "got 3 | want <4> @team", TestName: &test}, Status: StatusFailed,
				Reason: "no fixer had a fix for <4> | want @team", Line: "LOGIC error in calc/sum.go line 3 → Fix: not fixed"},
		},
		LLM: LLMUsage{Requests: 2, InputTokens: 900, OutputTokens: 120, CostUSD: 0.0042},
		CI:  &Verdict{Green: outcome == OutcomeGreen, Source: "local", Detail: "exit 0"},
	}
}

func TestPullRequestText(t *testing.T) {
	for _, outcome := range []string{OutcomeGreen, OutcomeRed} {
		t.Run(outcome, func(t *testing.T) {
			title, body := PullRequestText(prResults(outcome), "https://ci.example/runs/run-1")
			got := title + "\n\n" + body
			golden := filepath.Join("testdata", "pullrequest-"+outcome+".md")
			if os.Getenv("SALVE_UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (set SALVE_UPDATE_GOLDEN=1 to write it)", err)
			}
			if got != string(want) {
				t.Errorf("differs from %s:\n%s", golden, got)
			}
			if !strings.HasPrefix(body, PullRequestMarker) {
				t.Error("body lacks the marker")
			}
			if !strings.Contains(body, `\| want`) {
				t.Error("a pipe in a cell is not escaped")
			}
			for _, bad := range []string{"<4>", "@team"} {
				if strings.Contains(body, bad) {
					t.Errorf("body keeps %q unescaped", bad)
				}
			}
		})
	}
}
