package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/toolrun/clitest"
)

// sumFiles is a Go project whose test fails because Add subtracts.
var sumFiles = map[string]string{
	"go.mod": "module example.com/sum\n\ngo 1.22\n",
	"sum.go": `// Package sum adds numbers.
package sum

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
`,
	"sum_test.go": `package sum

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}
`,
}

// checkoutState is what a heal must leave alone in the user's checkout:
// its HEAD, its status and the content of every file.
func checkoutState(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{{"rev-parse", "HEAD"}, {"status", "--porcelain", "--untracked-files=all"}} {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		b.Write(out)
	}
	for _, name := range slices.Sorted(maps.Keys(sumFiles)) {
		c, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(name + "\n" + string(c))
	}
	return b.String()
}

// healWithClaude runs the real salve binary on repo with only the claude
// tier: the real Claude Code, pointed through ANTHROPIC_BASE_URL at a
// local Anthropic-wire server whose scripted model works through the
// CLI's own Read and Edit tools.
func healWithClaude(t *testing.T, repo string, model *clitest.Model) (int, results.Results, string) {
	t.Helper()
	claude := clitest.Claude(t)
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Handle(model.Answer)
	args := []string{"heal", "--workspace", repo, "--cmd", "go test ./...", "--fixers", "claude", "--models", "anthropic/claude-local",
		"--isolation", "none", "--no-store"}
	return healWithEnv(t, args, "PATH="+filepath.Dir(claude)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-local-test")
}

// TestHealClaudeFixesTheCode: salve heal --fixers claude runs Claude Code
// through the tool adapter in the heal's worktree; the model reads the
// code under test and edits it, the gate accepts the edit, and the heal is
// green with one commit that touches only that file.
func TestHealClaudeFixesTheCode(t *testing.T) {
	needTools(t, "go", "git")
	repo := agentRepo(t, sumFiles)
	before := checkoutState(t, repo)
	model := &clitest.Model{}
	code, res, out := healWithClaude(t, repo, model)
	if code != exitOK || res.Outcome != results.OutcomeGreen {
		t.Fatalf("exit %d, outcome %q, want green; the model called %q:\n%s", code, res.Outcome, model.Calls(), out)
	}
	if calls := model.Calls(); len(calls) != 2 || !strings.HasPrefix(calls[0], "Read ") || !strings.HasPrefix(calls[1], "Edit ") ||
		!strings.HasSuffix(calls[1], "/sum.go") {
		t.Errorf("the model's calls %q, want a read and an edit of sum.go", calls)
	}
	if files := branchFiles(t, repo, res.Branch); strings.Join(files, ",") != "sum.go" {
		t.Errorf("the heal changed %v, want sum.go only", files)
	}
	if len(res.Commits) != 1 || strings.Join(res.Commits[0].Files, ",") != "sum.go" {
		t.Errorf("commits %+v", res.Commits)
	}
	diff, err := exec.Command("git", "-C", repo, "diff", "main..."+res.Branch, "--", "sum.go").Output()
	if err != nil || !strings.Contains(string(diff), "-\treturn a - b\n+\treturn a + b\n") {
		t.Errorf("the heal's diff (%v):\n%s", err, diff)
	}
	if !slices.ContainsFunc(res.Bugs, func(b results.BugResult) bool {
		return slices.ContainsFunc(b.Attempts, func(a results.Attempt) bool { return a.Fixer == "claude" && a.Outcome == results.AttemptAccepted })
	}) {
		t.Errorf("no applied claude attempt in results.json:\n%s", out)
	}
	if after := checkoutState(t, repo); after != before {
		t.Errorf("the user's checkout changed:\n%s\nwas:\n%s", after, before)
	}
}

// TestHealClaudeCheatsRefused: a model that makes Claude Code edit the
// failing test, or a file no task named, gets nothing through: the tool
// adapter puts the edit back, the tier has no fix, the heal is not green,
// it commits nothing, and the user's checkout is untouched.
func TestHealClaudeCheatsRefused(t *testing.T) {
	needTools(t, "go", "git")
	for _, tc := range []struct {
		name   string
		mode   clitest.Mode
		edited string
	}{
		{"edits the test", clitest.EditTest, "/sum_test.go"},
		{"edits go.mod", clitest.EditOutside, "/go.mod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := agentRepo(t, sumFiles)
			before := checkoutState(t, repo)
			model := &clitest.Model{Mode: tc.mode}
			code, res, out := healWithClaude(t, repo, model)
			if code == exitOK || res.Outcome == results.OutcomeGreen {
				t.Fatalf("exit %d, outcome %q: a cheat went green:\n%s", code, res.Outcome, out)
			}
			calls := model.Calls()
			if !slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "Edit ") && strings.HasSuffix(c, tc.edited) }) {
				t.Fatalf("the model never tried to edit %s: %q", tc.edited, calls)
			}
			if len(res.Commits) != 0 || len(branchFiles(t, repo, res.Branch)) != 0 {
				t.Errorf("commits %+v, branch files %v", res.Commits, branchFiles(t, repo, res.Branch))
			}
			refused := slices.ContainsFunc(res.Bugs, func(b results.BugResult) bool {
				return slices.ContainsFunc(b.Attempts, func(a results.Attempt) bool {
					return a.Fixer == "claude" && strings.Contains(a.Reason, "outside its scope") && strings.Contains(a.Reason, strings.TrimPrefix(tc.edited, "/"))
				})
			})
			if !refused {
				t.Errorf("no claude attempt says its edit of %s was put back:\n%s", tc.edited, out)
			}
			if after := checkoutState(t, repo); after != before {
				t.Errorf("the user's checkout changed:\n%s\nwas:\n%s", after, before)
			}
		})
	}
}
