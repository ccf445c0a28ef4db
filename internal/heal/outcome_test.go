package heal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/logparse"
)

// envParser is the fake parser with the real environment classifier.
type envParser struct{ fakeParser }

func (envParser) Environment(log string, exit int, timedOut bool) *logparse.EnvironmentFailure {
	return logparse.Environment(log, exit, timedOut)
}

// msgGit records whole commit messages.
type msgGit struct {
	fakeGit
	messages []string
	fail     error
}

func (g *msgGit) Commit(ctx context.Context, dir string, files []string, msg string) error {
	if g.fail != nil {
		return g.fail
	}
	g.messages = append(g.messages, msg)
	return g.fakeGit.Commit(ctx, dir, files, msg)
}

// TestEnvironmentNeverSentToAFixer: a build that fails because a module
// cannot be fetched ends as an environment failure, with its evidence,
// even though the parser reports the line as a bug; no fixer is asked and
// nothing is committed.
func TestEnvironmentNeverSentToAFixer(t *testing.T) {
	tests := []struct {
		name, log string
		exit      int
		timedOut  bool
		kind      logparse.EnvironmentKind
	}{
		{"go module offline", "go: downloading github.com/acme/colorize v1.2.0\nmain.go:6:2: module lookup disabled by GOPROXY=off\n", 1, false, logparse.EnvNetwork},
		{"missing tool", "sh: 1: cmake: not found\n", 127, false, logparse.EnvMissingTool},
		{"killed", "bash: line 1:  4242 Killed                  ./run-tests\n", 137, false, logparse.EnvOutOfMemory},
		{"timeout", "=== RUN   TestSlow\n", -1, true, logparse.EnvTimeout},
		{"full disk", "OSError: [Errno 28] No space left on device\n", 1, false, logparse.EnvDiskFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := newRepo(t, map[string]string{"main.go": "package main\n"})
			fx := &fakeFixer{name: "rules", fix: fixBug(0.9)}
			o, g := baseOptions(t, repo, fx)
			o.Parser = envParser{fakeParser{extra: []contract.BugReport{{FilePath: "main.go", LineNumber: 1, ErrorType: contract.ErrTypeError, Message: "x"}}}}
			o.Executor = fakeExecutor{func(context.Context, contract.ExecutorInput) (contract.ExecutorOutput, error) {
				out := contract.ExecutorOutput{ExitCode: tt.exit, BuildLog: tt.log}
				out.EnvironmentMetadata.TimedOut = tt.timedOut
				return out, nil
			}}
			res, err := Run(context.Background(), o)
			if !errors.Is(err, ErrEnvironment) {
				t.Fatalf("err = %v, want ErrEnvironment", err)
			}
			if res == nil || res.Outcome != results.OutcomeEnvironment || res.Environment == nil || res.Environment.Kind != tt.kind {
				t.Fatalf("results = %+v", res)
			}
			if !strings.Contains(res.Reason, res.Environment.Evidence) || res.Environment.Evidence == "" {
				t.Errorf("reason %q does not carry the evidence %q", res.Reason, res.Environment.Evidence)
			}
			if len(fx.seen) != 0 || len(g.commits) != 0 || len(res.Bugs) != 0 {
				t.Errorf("fixer asked %d times, %d commits, %d bugs; want none", len(fx.seen), len(g.commits), len(res.Bugs))
			}
		})
	}
}

// TestEnvironmentInVerification: when the verification build fails
// because of its environment, the fixes are reverted and not committed.
func TestEnvironmentInVerification(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	o, g := baseOptions(t, repo, &fakeFixer{name: "rules", fix: fixBug(0.9)})
	o.Parser = envParser{}
	o.KeepWorktree = KeepAlways
	builds := 0
	o.Executor = fakeExecutor{func(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
		builds++
		if builds == 2 {
			return contract.ExecutorOutput{ExitCode: 1, BuildLog: "npm error code EAI_AGAIN\n"}, nil
		}
		return xBuild(ctx, in)
	}}
	res, err := Run(context.Background(), o)
	if !errors.Is(err, ErrEnvironment) || res.Outcome != results.OutcomeEnvironment {
		t.Fatalf("err = %v, outcome %s", err, res.Outcome)
	}
	if len(g.commits) != 0 {
		t.Errorf("commits %v, want none", g.commits)
	}
	b, _ := os.ReadFile(filepath.Join(o.WorktreeDir, "a.x"))
	if string(b) != tenLines {
		t.Errorf("the fix was not reverted:\n%s", b)
	}
	if len(res.Bugs) != 1 || !strings.Contains(res.Bugs[0].Reason, "environment") {
		t.Errorf("bugs %+v", res.Bugs)
	}
}

// TestCommitMessageCarriesTheFixLine: the commit message holds the bug's
// real line, not a pending placeholder.
func TestCommitMessageCarriesTheFixLine(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	o, _ := baseOptions(t, repo, &fakeFixer{name: "rules", fix: fixBug(0.9)})
	g := &msgGit{}
	o.Git, o.Worktrees = g, gitWorktrees{g}
	res, err := Run(context.Background(), o)
	if err != nil || res.Outcome != results.OutcomeGreen {
		t.Fatalf("err %v outcome %s", err, res.Outcome)
	}
	if len(g.messages) != 1 {
		t.Fatalf("messages %q", g.messages)
	}
	m := g.messages[0]
	if !strings.Contains(m, "SYNTAX error in a.x line 3 → Fix: replace the bug") || strings.Contains(m, "pending") {
		t.Errorf("commit message:\n%s", m)
	}
	if res.Bugs[0].Commit != "c1" {
		t.Errorf("commit %q", res.Bugs[0].Commit)
	}
	if got := res.ByType["SYNTAX"]; got != (results.TypeRate{Found: 1, Fixed: 1}) {
		t.Errorf("by type %+v", res.ByType)
	}
}

// TestOutcomeNeverBlank: a run stopped by its own error still says so.
func TestOutcomeNeverBlank(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	o, _ := baseOptions(t, repo, &fakeFixer{name: "rules", fix: fixBug(0.9)})
	g := &msgGit{fail: fmt.Errorf("index.lock exists")}
	o.Git, o.Worktrees = g, gitWorktrees{g}
	res, err := Run(context.Background(), o)
	if err == nil || res.Outcome != results.OutcomeError || !strings.Contains(res.Reason, "index.lock") {
		t.Fatalf("err %v outcome %q reason %q", err, res.Outcome, res.Reason)
	}
}

// TestUnconfiguredTier: a stand-in tier records why it did not run and
// how to enable it, and the bug's explanation shows both.
func TestUnconfiguredTier(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	rules := &fakeFixer{name: "rules", fix: func(FixInput) (contract.FixResult, error) {
		return contract.FixResult{}, fmt.Errorf("rules: no rule matches a.x: %w", results.ErrNoFix)
	}}
	o, _ := baseOptions(t, repo, rules, Unconfigured{Tier: "llm", Why: "no LLM provider is configured", Enable: "set OPENAI_API_KEY and run salve heal --fixers rules,llm --models openai/gpt-4o"})
	res, err := Run(context.Background(), o)
	if err != nil || res.Outcome != results.OutcomeRed {
		t.Fatalf("err %v outcome %s", err, res.Outcome)
	}
	b := res.Bugs[0]
	if want := "not fixed (failed: no fixer had a fix: rules: no rule matches a.x; llm: not configured)"; !strings.HasSuffix(b.Line, want) {
		t.Errorf("line %q, want suffix %q", b.Line, want)
	}
	got := strings.Join(b.Explain(), "\n")
	want := "message: bug here\nrules: no rule matches a.x\nllm: not configured (no LLM provider is configured): set OPENAI_API_KEY and run salve heal --fixers rules,llm --models openai/gpt-4o"
	if got != want {
		t.Errorf("Explain:\n%s\nwant:\n%s", got, want)
	}
	if res.ByType["SYNTAX"] != (results.TypeRate{Found: 1, Left: 1}) {
		t.Errorf("by type %+v", res.ByType)
	}
}

// rerunCI is a CI monitor whose own re-run fails for want of memory.
type rerunCI struct{}

func (rerunCI) Name() string { return "local" }
func (rerunCI) Verdict(context.Context, CITarget) (results.Verdict, error) {
	b := contract.ExecutorOutput{ExitCode: 137, BuildLog: "running the suite\n"}
	return results.Verdict{Green: false, Source: "local", Build: &b}, nil
}

// TestEnvironmentInCIRerun: the CI monitor's re-run is classified too; the
// verified fix stays committed and the run stops with exit 3's outcome.
func TestEnvironmentInCIRerun(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	fx := &fakeFixer{name: "rules", fix: fixBug(0.9)}
	o, g := baseOptions(t, repo, fx)
	o.Parser = envParser{}
	o.CI = rerunCI{}
	res, err := Run(context.Background(), o)
	if !errors.Is(err, ErrEnvironment) || res.Outcome != results.OutcomeEnvironment || res.Environment.Kind != logparse.EnvOutOfMemory {
		t.Fatalf("err %v, outcome %s, env %+v", err, res.Outcome, res.Environment)
	}
	if len(g.commits) != 1 || len(fx.seen) != 1 {
		t.Errorf("commits %v, fixer calls %d", g.commits, len(fx.seen))
	}
}
