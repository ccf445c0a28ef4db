package results

import (
	"fmt"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestExplain(t *testing.T) {
	bug := contract.BugReport{FilePath: "a.go", LineNumber: 3, ErrorType: contract.ErrTypeError, Message: "a.go:3:2: undefined: Prinln\n\n  more\nl3\nl4\nl5"}
	tests := []struct {
		name string
		b    BugResult
		want []string
	}{
		{"fixed", BugResult{Bug: bug, Status: StatusFixed}, nil},
		{"rejected", BugResult{Bug: bug, Status: StatusRejected, Reason: "x", Attempts: []Attempt{{Fixer: "llm", Outcome: AttemptRejected, Confidence: 0.5, Reason: "confidence 0.50 is below the threshold 0.70"}}},
			[]string{"message: a.go:3:2: undefined: Prinln", "           more", "         l3", "         l4", "         … (1 more lines in results.json)", "llm: fix (confidence 0.50) rejected by the gate: confidence 0.50 is below the threshold 0.70"}},
		{"llm error", BugResult{Bug: contract.BugReport{Message: "m"}, Status: StatusFailed, Reason: "no fixer had a fix: llm: failed", Attempts: []Attempt{{Fixer: "llm", Outcome: AttemptError, Reason: "llm: openai/gpt-4o: dial tcp: connection refused"}}},
			[]string{"message: m", "llm: failed: openai/gpt-4o: dial tcp: connection refused"}},
		{"reverted", BugResult{Bug: contract.BugReport{Message: "m"}, Status: StatusFailed, Reason: "reverted: the build got worse", Attempts: []Attempt{{Fixer: "rules", Outcome: AttemptAccepted}}},
			[]string{"message: m", "rules: fix accepted by the gate", "why: reverted: the build got worse"}},
		{"reverted, said by its attempt", BugResult{Bug: contract.BugReport{Message: "m"}, Status: StatusFailed, Reason: "reverted: it broke the lines it wrote: a.go:3: undefined: x",
			Attempts: []Attempt{{Fixer: "rules", Outcome: AttemptReverted, Confidence: 0.9, Reason: "it broke the lines it wrote: a.go:3: undefined: x"}}},
			[]string{"message: m", "rules: fix (confidence 0.90) accepted by the gate, then reverted: it broke the lines it wrote: a.go:3: undefined: x"}},
		{"skipped", BugResult{Bug: contract.BugReport{Message: "m"}, Status: StatusSkipped, Reason: "the file is outside the workspace"},
			[]string{"message: m", "why: the file is outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.Explain()
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Explain:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestTallyByType(t *testing.T) {
	b := func(file string, typ contract.ErrorType, msg string) contract.BugReport {
		return contract.BugReport{FilePath: file, LineNumber: 1, ErrorType: typ, Message: msg}
	}
	bugs := []BugResult{
		{Bug: b("a.go", contract.ErrSyntax, "expected ';' at 3"), Status: StatusFailed},
		{Bug: b("a.go", contract.ErrSyntax, "expected ';' at 4"), Status: StatusFixed}, // the same bug, next iteration
		{Bug: b("b.go", contract.ErrTypeError, "undefined: x"), Status: StatusRejected},
		{Bug: b("c.go", contract.ErrLogic, "want 3 got 4"), Status: StatusFailed},
	}
	remaining := []contract.BugReport{b("b.go", contract.ErrTypeError, "undefined: x"), b("d.go", contract.ErrImport, "no module")}
	got := TallyByType(bugs, remaining)
	want := map[string]TypeRate{
		"SYNTAX":     {Found: 1, Fixed: 1},
		"TYPE_ERROR": {Found: 1, Rejected: 1, Left: 1},
		"LOGIC":      {Found: 1, Left: 1},
		"IMPORT":     {Found: 1, Left: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TallyByType = %v, want %v", got, want)
	}
}

func TestTierSummaryShortensLongReasons(t *testing.T) {
	long := strings.Repeat("é", 200)
	got := TierSummary([]Attempt{{Fixer: "llm", Outcome: AttemptError, Reason: long}, {Fixer: "rules", Outcome: AttemptNoFix, Reason: "rules: no rule matches a.go: no fix"}})
	first, second, _ := strings.Cut(got, "; ")
	if !strings.HasPrefix(first, "llm: failed: é") || !strings.HasSuffix(first, "…") || len(first) > len("llm: ")+maxTierReason+len("…") {
		t.Errorf("first part %q", first)
	}
	if second != "rules: no rule matches a.go" {
		t.Errorf("second part %q", second)
	}
}
