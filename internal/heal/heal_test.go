package heal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/heal/undertest"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/heal/target"
	"github.com/salve-dev/salve/internal/sandbox"
)

// The fakes below are structs of function fields. The fake build reads the
// workspace's *.x files: a line holding "BUG" is one error, a line holding
// "WORSE" two. The fake parser reads "file:line: TYPE message" lines.

type fakeExecutor struct {
	run func(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error)
}

func (f fakeExecutor) Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	return f.run(ctx, in)
}

func xBuild(_ context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	files, _ := filepath.Glob(filepath.Join(in.WorkspacePath, "*.x"))
	sort.Strings(files)
	var log strings.Builder
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for i, l := range strings.Split(string(b), "\n") {
			name := filepath.Base(f)
			if strings.Contains(l, "BUG") {
				fmt.Fprintf(&log, "%s:%d: SYNTAX bug here\n", name, i+1)
			}
			if strings.Contains(l, "WORSE") {
				fmt.Fprintf(&log, "%s:%d: SYNTAX worse one\n%s:%d: TYPE_ERROR worse two\n", name, i+1, name, i+1)
			}
		}
	}
	out := contract.ExecutorOutput{BuildLog: log.String()}
	if log.Len() > 0 {
		out.ExitCode = 1
	}
	return out, nil
}

// noEnv is a parser that never blames the environment.
type noEnv struct{}

func (noEnv) Environment(string, int, bool) *logparse.EnvironmentFailure { return nil }

type fakeParser struct {
	noEnv
	extra []contract.BugReport
}

var reportLine = regexp.MustCompile(`(?m)^([^:\s]+):(\d+): (\w+) (.*)$`)

func (p fakeParser) Parse(log, _ string) []contract.BugReport {
	out := append([]contract.BugReport{}, p.extra...)
	for _, m := range reportLine.FindAllStringSubmatch(log, -1) {
		n, _ := strconv.Atoi(m[2])
		out = append(out, contract.BugReport{FilePath: m[1], LineNumber: n, ErrorType: contract.ErrorType(m[3]), Message: m[4]})
	}
	return out
}

type fakeFixer struct {
	name string
	fix  func(in FixInput) (contract.FixResult, error)
	seen []FixInput
}

func (f *fakeFixer) Name() string { return f.name }
func (f *fakeFixer) Fix(_ context.Context, in FixInput) (contract.FixResult, error) {
	f.seen = append(f.seen, in)
	return f.fix(in)
}

// fakeGit records commits and pushes; its branch is made for real, so a
// test can see it in the repository.
type fakeGit struct {
	commits []string
	pushes  []string
	// branch is the heal branch once created; its tip is the last commit.
	branch string
}

func (g *fakeGit) Commit(_ context.Context, dir string, files []string, msg string) error {
	g.commits = append(g.commits, strings.Join(files, ",")+": "+firstLine(msg))
	return nil
}
func (g *fakeGit) Push(_ context.Context, _, remote, branch string) error {
	g.pushes = append(g.pushes, remote+" "+branch)
	return nil
}
func (g *fakeGit) Head(context.Context, string) (string, error) {
	if len(g.commits) > 0 {
		return fmt.Sprintf("c%d", len(g.commits)), nil
	}
	return "base", nil
}
func (g *fakeGit) RevParse(_ context.Context, _, ref string) (string, error) {
	if g.branch != "" && ref == "refs/heads/"+g.branch && len(g.commits) > 0 {
		return fmt.Sprintf("c%d", len(g.commits)), nil
	}
	return "", fmt.Errorf("unknown revision %s", ref)
}
func (g *fakeGit) Diff(context.Context, string) (string, error) { return "", nil }
func (g *fakeGit) CheckBranch(name string) error                { return server.ValidateBranchName(name) }
func (g *fakeGit) PruneBranches(context.Context, string, string) ([]string, error) {
	return nil, nil
}
func (g *fakeGit) CreateBranch(_ context.Context, dir, branch string) error {
	g.branch = branch
	_, err := runGit(dir, "switch", "-q", "-c", branch)
	return err
}
func (g *fakeGit) PushLease(ctx context.Context, dir, remote, branch, _ string) error {
	return g.Push(ctx, dir, remote, branch)
}
func (g *fakeGit) Reset(context.Context, string, string) error        { return nil }
func (g *fakeGit) Clean(context.Context, string) error                { return nil }
func (g *fakeGit) Untracked(context.Context, string) (string, error)  { return "", nil }
func (g *fakeGit) Gitlinks(context.Context, string) ([]string, error) { return nil, nil }
func (g *fakeGit) Detach(context.Context, string, string) error       { return nil }

// fakeTargets finds the code under test with the target package.
type fakeTargets struct{}

func (fakeTargets) Regions(ctx context.Context, ws string, bug contract.BugReport) ([]undertest.Region, error) {
	return target.Resolve(ctx, ws, bug, target.Options{})
}
func (fakeTargets) TestSource(ctx context.Context, ws string, bug contract.BugReport) (string, error) {
	return target.TestContext(ctx, ws, bug, target.Options{})
}

type localCI struct{}

func (localCI) Name() string { return "local" }
func (localCI) Verdict(_ context.Context, t CITarget) (results.Verdict, error) {
	return results.Verdict{Green: t.Build.ExitCode == 0, Source: "local", Build: t.Build}, nil
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	env := sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"})
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "git", Args: append([]string{"-C", dir}, args...), Env: env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("git %v: %v %s", args, err, res.Stderr)
	}
	return strings.TrimSpace(string(res.Stdout))
}

// newRepo makes a git repository holding files, committed.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "init")
	return dir
}

func replaceLine(content string, n int, with string) string {
	ls := strings.Split(content, "\n")
	ls[n-1] = with
	return strings.Join(ls, "\n")
}

// fixBug fixes the reported line by replacing it.
func fixBug(conf float64) func(FixInput) (contract.FixResult, error) {
	return func(in FixInput) (contract.FixResult, error) {
		return contract.FixResult{PatchedContent: replaceLine(in.Content, in.Request.BugReport.LineNumber, "ok"), FixReason: "replace the bug", ConfidenceScore: conf}, nil
	}
}

func baseOptions(t *testing.T, repo string, fixers ...Fixer) (Options, *fakeGit) {
	g := &fakeGit{}
	return Options{
		Repo: repo, Executor: fakeExecutor{xBuild}, Parser: fakeParser{}, Targets: fakeTargets{}, Fixers: fixers, Git: g,
		Worktrees: gitWorktrees{g}, CI: localCI{}, WorktreeDir: filepath.Join(t.TempDir(), "wt"),
	}, g
}

const tenLines = "l1\nl2\nBUG\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\nl14\nl15\nl16\nl17\nl18\nl19\nl20\n"

func TestRunOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		files      map[string]string
		fixers     func() []Fixer
		maxIter    int
		parser     fakeParser
		outcome    string
		reason     string
		statuses   []string
		commits    int
		bugReasons []string
	}{
		{name: "already green", files: map[string]string{"a.x": "fine\n"}, fixers: func() []Fixer { return nil },
			outcome: results.OutcomeGreen, reason: "already green"},
		{name: "fixed", files: map[string]string{"a.x": tenLines},
			fixers:  func() []Fixer { return []Fixer{&fakeFixer{name: "f", fix: fixBug(0.9)}} },
			outcome: results.OutcomeGreen, reason: "green", statuses: []string{results.StatusFixed}, commits: 1},
		{name: "tier fallback", files: map[string]string{"a.x": tenLines},
			fixers: func() []Fixer {
				return []Fixer{
					&fakeFixer{name: "none", fix: func(FixInput) (contract.FixResult, error) {
						return contract.FixResult{}, fmt.Errorf("nothing: %w", results.ErrNoFix)
					}},
					&fakeFixer{name: "f", fix: fixBug(0.9)},
				}
			},
			outcome: results.OutcomeGreen, statuses: []string{results.StatusFixed}, commits: 1},
		{name: "rejected too wide", files: map[string]string{"a.x": tenLines},
			fixers: func() []Fixer {
				return []Fixer{&fakeFixer{name: "wide", fix: func(in FixInput) (contract.FixResult, error) {
					return contract.FixResult{PatchedContent: replaceLine(replaceLine(in.Content, 3, "ok"), 15, "refactored"), FixReason: "wide", ConfidenceScore: 0.99}, nil
				}}}
			},
			outcome: results.OutcomeRed, reason: "no fixer produced", statuses: []string{results.StatusRejected}, bugReasons: []string{"lines 15-15, outside the reported lines ±3"}},
		{name: "rejected low confidence", files: map[string]string{"a.x": tenLines},
			fixers:  func() []Fixer { return []Fixer{&fakeFixer{name: "unsure", fix: fixBug(0.4)}} },
			outcome: results.OutcomeRed, statuses: []string{results.StatusRejected}, bugReasons: []string{"confidence 0.40 is below the threshold 0.70"}},
		{name: "worse is reverted", files: map[string]string{"a.x": tenLines},
			fixers: func() []Fixer {
				return []Fixer{&fakeFixer{name: "bad", fix: func(in FixInput) (contract.FixResult, error) {
					return contract.FixResult{PatchedContent: replaceLine(in.Content, 3, "WORSE"), FixReason: "bad", ConfidenceScore: 0.9}, nil
				}}}
			},
			outcome: results.OutcomeRed, statuses: []string{results.StatusFailed, results.StatusRejected},
			bugReasons: []string{"reverted: it broke the lines it wrote: a.x:3: worse one", "the same fix was reverted in iteration 1"}},
		{name: "max iterations", files: map[string]string{"a.x": "BUG\n\n\n\n\n\n\n\nBUG\n\n\n\n\n\n\nBUG\n"}, maxIter: 2,
			fixers: func() []Fixer {
				return []Fixer{&fakeFixer{name: "one", fix: func(in FixInput) (contract.FixResult, error) {
					return contract.FixResult{PatchedContent: replaceLine(in.Content, in.Request.BugReport.LineNumber, ""), FixReason: "one at a time", ConfidenceScore: 0.9}, nil
				}}}
			},
			outcome: results.OutcomeRed, reason: "max iterations (2) reached", commits: 2,
			statuses: []string{results.StatusFixed, results.StatusFailed, results.StatusFailed, results.StatusFixed, results.StatusFailed}},
		{name: "outside the workspace", files: map[string]string{"a.x": tenLines},
			parser:  fakeParser{extra: []contract.BugReport{{FilePath: "../../etc/passwd", LineNumber: 1, ErrorType: contract.ErrSyntax, Message: "x"}}},
			fixers:  func() []Fixer { return []Fixer{&fakeFixer{name: "f", fix: fixBug(0.9)}} },
			outcome: results.OutcomeGreen, statuses: []string{results.StatusSkipped, results.StatusFixed}, commits: 1,
			bugReasons: []string{"the file is outside the workspace"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, tc.files)
			o, g := baseOptions(t, repo, tc.fixers()...)
			o.MaxIterations, o.Parser = tc.maxIter, tc.parser
			res, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome || !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("outcome %s (%s), want %s (%s)", res.Outcome, res.Reason, tc.outcome, tc.reason)
			}
			var st []string
			for _, b := range res.Bugs {
				st = append(st, b.Status)
			}
			if fmt.Sprint(st) != fmt.Sprint(tc.statuses) {
				t.Errorf("statuses %v, want %v", st, tc.statuses)
			}
			for i, want := range tc.bugReasons {
				if i >= len(res.Bugs) || !strings.Contains(res.Bugs[i].Reason, want) {
					t.Errorf("bug %d reason %q, want it to contain %q", i, res.Bugs[min(i, len(res.Bugs)-1)].Reason, want)
				}
			}
			if len(g.commits) != tc.commits || len(res.Commits) != tc.commits {
				t.Errorf("commits %v (results %d), want %d", g.commits, len(res.Commits), tc.commits)
			}
			for _, b := range res.Bugs {
				if !strings.HasPrefix(b.Line, string(b.Bug.ErrorType)+" error in "+b.Bug.FilePath+" line ") {
					t.Errorf("badly formatted line %q", b.Line)
				}
			}
			if _, err := os.Stat(o.WorktreeDir); !os.IsNotExist(err) {
				t.Errorf("worktree %s left behind", o.WorktreeDir)
			}
			if got := git(t, repo, "status", "--porcelain"); got != "" {
				t.Errorf("user's tree changed: %s", got)
			}
		})
	}
}

func TestPreviousAttemptInfoIsFedBack(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	f := &fakeFixer{name: "bad", fix: func(in FixInput) (contract.FixResult, error) {
		return contract.FixResult{PatchedContent: replaceLine(in.Content, 3, fmt.Sprintf("WORSE %d", len(in.Request.PreviousAttemptInfo))), FixReason: "bad", ConfidenceScore: 0.9}, nil
	}}
	o, _ := baseOptions(t, repo, f)
	o.MaxIterations = 2
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(f.seen) != 2 {
		t.Fatalf("fixer called %d times, want 2", len(f.seen))
	}
	if f.seen[0].Request.PreviousAttemptInfo != nil {
		t.Errorf("first attempt has previous_attempt_info %v", f.seen[0].Request.PreviousAttemptInfo)
	}
	p := f.seen[1].Request.PreviousAttemptInfo
	if p["outcome"] != "reverted" || !strings.Contains(fmt.Sprint(p["reason"]), "broke the lines it wrote") || !strings.Contains(fmt.Sprint(p["diff"]), "+WORSE") {
		t.Errorf("second attempt's previous_attempt_info = %v", p)
	}
	if !strings.Contains(f.seen[0].Request.FileSnippet, "   3 | BUG") {
		t.Errorf("snippet lacks the reported line:\n%s", f.seen[0].Request.FileSnippet)
	}
}

func TestPushAndTimings(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	o, g := baseOptions(t, repo, &fakeFixer{name: "f", fix: fixBug(0.9)})
	o.Push, o.Branch = true, "heal/test"
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(g.pushes) != "[origin heal/test]" || !res.Pushed {
		t.Errorf("pushes %v, pushed %v", g.pushes, res.Pushed)
	}
	for _, s := range []string{results.StageSetup, results.StageBuild, results.StageParse, results.StageFix, results.StageGate, results.StageVerify, results.StageCommit, results.StagePush, results.StageCI, results.StageCleanup} {
		if _, ok := res.Timings[s]; !ok {
			t.Errorf("no timing for stage %s: %v", s, res.Timings)
		}
	}
	if len(res.IterationTimings) != 1 {
		t.Errorf("iteration timings %v", res.IterationTimings)
	}
	if got := git(t, repo, "branch", "--list", "heal/test"); !strings.Contains(got, "heal/test") {
		t.Errorf("heal branch missing after the run: %q", got)
	}
}

func TestEnvironmentAndBadInput(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	o, _ := baseOptions(t, repo)
	o.Executor = fakeExecutor{func(context.Context, contract.ExecutorInput) (contract.ExecutorOutput, error) {
		return contract.ExecutorOutput{ExitCode: 127, BuildLog: "sh: 1: make: not found\n"}, nil
	}}
	if _, err := Run(context.Background(), o); !errors.Is(err, ErrEnvironment) {
		t.Errorf("exit 127: err = %v, want ErrEnvironment", err)
	}
	o2, _ := baseOptions(t, t.TempDir())
	if _, err := Run(context.Background(), o2); !errors.Is(err, ErrBadInput) {
		t.Errorf("not a repository: err = %v, want ErrBadInput", err)
	}
	o3, _ := baseOptions(t, repo)
	o3.Executor = nil
	if _, err := Run(context.Background(), o3); !errors.Is(err, ErrBadInput) {
		t.Errorf("no executor: err = %v, want ErrBadInput", err)
	}
	empty := t.TempDir()
	if _, err := runGit(empty, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	o4, _ := baseOptions(t, empty)
	o4.WorktreeDir, o4.WorktreeRoot = "", t.TempDir() // a persistent worktree, as salve heal uses
	if _, err := Run(context.Background(), o4); !errors.Is(err, ErrBadInput) {
		t.Errorf("a repository without a commit: err = %v, want ErrBadInput", err)
	}
}

func TestCleanStale(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": "fine\n"})
	// A process that has exited: its pid is free.
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "sh", Args: []string{"-c", "echo $$"}, Env: sandbox.AllowedEnv()})
	if err != nil {
		t.Fatal(err)
	}
	dead, _ := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	wt := gitWorktrees{&fakeGit{}}
	stale := filepath.Join(t.TempDir(), "stale")
	live := filepath.Join(t.TempDir(), "live")
	ctx := context.Background()
	// Each on its branch, as a heal that had committed leaves it.
	if _, err := runGit(repo, "worktree", "add", "--lock", "--reason", lockReason(dead, "salve/heal-dead"), "-b", "salve/heal-dead", stale); err != nil {
		t.Fatal(err)
	}
	if _, err := runGit(repo, "worktree", "add", "--lock", "--reason", lockReason(os.Getpid(), "salve/heal-live"), "-b", "salve/heal-live", live); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanStale(ctx, wt, repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != stale {
		t.Errorf("removed %v, want [%s]", removed, stale)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale worktree folder still there")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("live worktree removed")
	}
	if b := git(t, repo, "branch", "--list", "salve/heal-*"); !strings.Contains(b, "dead") || !strings.Contains(b, "live") {
		t.Errorf("branches after cleanup: %q (both are kept)", b)
	}
}

// warmingExecutor is a fakeExecutor that is a Warmer too: it records the
// Warm's call and counts the builds.
type warmingExecutor struct {
	fakeExecutor
	mu       sync.Mutex
	dir, cmd string
	warmed   bool
	builds   int
}

func (w *warmingExecutor) Warm(_ context.Context, dir string, in contract.ExecutorInput) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dir, w.cmd, w.warmed = dir, in.ResolvedBuildCommand, true
}

func (w *warmingExecutor) Run(ctx context.Context, in contract.ExecutorInput) (contract.ExecutorOutput, error) {
	w.mu.Lock()
	w.builds++
	w.mu.Unlock()
	return w.fakeExecutor.Run(ctx, in)
}

// TestRunWarmsTheExecutor: a run hands a Warmer its checkout and build
// command at the start, and has waited for the Warm when it returns.
func TestRunWarmsTheExecutor(t *testing.T) {
	repo := newRepo(t, map[string]string{"a.x": tenLines})
	o, _ := baseOptions(t, repo, &fakeFixer{name: "f", fix: fixBug(0.9)})
	o.Command = "make check"
	w := &warmingExecutor{fakeExecutor: fakeExecutor{xBuild}}
	o.Executor = w
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.warmed || w.dir != repo || w.cmd != "make check" {
		t.Errorf("Warm got dir %q, command %q (called %v); want %q, %q", w.dir, w.cmd, w.warmed, repo, "make check")
	}
	if w.builds == 0 {
		t.Error("no build ran")
	}
}
