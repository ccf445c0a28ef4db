package heal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/ci"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/llmfix"
	"github.com/salve-dev/salve/internal/heal/rules"
	"github.com/salve-dev/salve/internal/llm/scripted"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/testrepo"
)

// These tests run whole heals over real repositories in temporary folders:
// real git (through the git_agent binary), real builds (go, python3, cc),
// the real parser, the rules tier, the test-llm provider, and the run store.

func need(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: this end-to-end test needs it", tool)
		}
	}
}

func gitIdentity(t testing.TB) {
	for k, v := range map[string]string{"GIT_AUTHOR_NAME": "salve", "GIT_AUTHOR_EMAIL": "salve@localhost", "GIT_COMMITTER_NAME": "salve", "GIT_COMMITTER_EMAIL": "salve@localhost", "GIT_CONFIG_NOSYSTEM": "1"} {
		t.Setenv(k, v)
	}
}

func run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: name, Args: args, Dir: dir, Env: sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"), Timeout: 2 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%s %v: %v %s %s", name, args, err, res.Stdout, res.Stderr)
	}
	return strings.TrimSpace(string(res.Stdout))
}

// userState is everything of the user's repository that heal must not
// touch: the work tree's files, the index, HEAD and every ref except the
// heal branches (and their remote-tracking refs after a push).
func userState(t testing.TB, repo string) string {
	t.Helper()
	return testrepo.State(t, repo, "refs/heads/salve/", "refs/remotes/origin/salve/")
}

// options wires the real layers for repo.
func options(t testing.TB, repo, command string, fixers ...heal.Fixer) heal.Options {
	gitAgent, _ := heal.Binaries()
	ex := adapter.Executor{E: executor.New(executor.Options{Isolation: "none", SkipProbe: true, RunDir: t.TempDir()})}
	g := adapter.Git{Bin: gitAgent}
	if len(fixers) == 0 {
		fixers = []heal.Fixer{&rules.Fixer{}}
	}
	// The llm tier spends tokens: its accounting goes to the results.
	var spend []heal.Accountant
	for _, f := range fixers {
		if a, ok := f.(*llmfix.Fixer); ok {
			spend = append(spend, a)
		}
	}
	return heal.Options{
		Repo: repo, Command: command, Executor: ex, Parser: adapter.Parser{}, Targets: adapter.Targets{}, Fixers: fixers, Accountants: spend,
		Git: g, Worktrees: adapter.Worktrees{Git: g}, CI: &ci.Local{Executor: ex},
		WorktreeDir: filepath.Join(t.TempDir(), "wt"),
	}
}

// scriptedFixer is the llm tier over the test-llm provider with a scenario
// whose one reply is patched (series.go of logic-bug) with a confidence.
func scriptedFixer(t testing.TB, patched string, conf float64) *llmfix.Fixer {
	t.Helper()
	report := map[string]any{"patched_content": patched, "fix_reason": "scripted fix", "confidence_score": conf}
	sc := []map[string]any{{"id": "fix", "systemPromptMustInclude": []string{"Fix Agent"},
		"turns": []map[string]any{{"turn": 1, "response": map[string]any{"kind": "final-report", "reportFormat": "json", "reportContentJson": report,
			"tokenUsage": map[string]int{"inputTokens": 500, "outputTokens": 100}}}}}}
	b, _ := json.Marshal(sc)
	parsed, err := scripted.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return &llmfix.Fixer{Targets: []llmfix.Target{{Provider: "test", Model: "fix", Client: scripted.New(parsed)}}}
}

type outcome struct {
	outcome  string
	reason   string
	statuses string
	commits  int
	lines    []string
}

func check(t *testing.T, res *results.Results, err error, want outcome) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, b := range res.Bugs {
		st = append(st, b.Status)
	}
	if res.Outcome != want.outcome || !strings.Contains(res.Reason, want.reason) {
		t.Errorf("outcome %s (%s), want %s (%s)", res.Outcome, res.Reason, want.outcome, want.reason)
	}
	if want.statuses != "" && strings.Join(st, ",") != want.statuses {
		t.Errorf("statuses %v, want %s", st, want.statuses)
	}
	if len(res.Commits) != want.commits {
		t.Errorf("%d commits, want %d: %+v", len(res.Commits), want.commits, res.Commits)
	}
	var lines []string
	for _, b := range res.Bugs {
		lines = append(lines, b.Line)
	}
	for _, w := range want.lines {
		if !strings.Contains(strings.Join(lines, "\n"), w) {
			t.Errorf("no line contains %q:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	if t.Failed() {
		b, _ := json.MarshalIndent(res, "", "  ")
		t.Logf("results:\n%s", b)
	}
}

func TestHealByRules(t *testing.T) {
	gitIdentity(t)
	for _, tc := range []struct {
		example, command string
		tools            []string
		want             outcome
	}{
		{"go-broken", "sh check.sh", []string{"go", "gofmt"}, outcome{outcome: results.OutcomeGreen, statuses: "fixed,fixed,fixed", commits: 2, lines: []string{
			`LINTING error in sum.go line 5 → Fix: gofmt line 5`,
			`IMPORT error in main.go line 6 → Fix: remove unused import "os"`,
			`TYPE_ERROR error in main.go line 11 → Fix: add missing import "strings"`}}},
		{"python-broken", "python3 -m unittest discover -v", []string{"python3"}, outcome{outcome: results.OutcomeGreen, statuses: "fixed", commits: 1, lines: []string{
			"INDENTATION error in stats.py line 7 → Fix: indent line 7 with spaces instead of tabs"}}},
		{"c-broken", "", []string{"cc", "make"}, outcome{outcome: results.OutcomeGreen, statuses: "fixed", commits: 1, lines: []string{
			"SYNTAX error in calc.c line 6 → Fix: add the missing ';' at the end of line 5"}}},
	} {
		t.Run(tc.example, func(t *testing.T) {
			need(t, tc.tools...)
			repo := testrepo.Example(t, tc.example)
			before := userState(t, repo)
			o := options(t, repo, tc.command)
			res, err := heal.Run(context.Background(), o)
			check(t, res, err, tc.want)
			if after := userState(t, repo); after != before {
				t.Error("the user's work tree, index or branches changed")
			}
			log := run(t, repo, "git", "log", "--format=%s", res.Branch)
			if strings.Count(log, "salve heal: fix ") != tc.want.commits {
				t.Errorf("heal branch log:\n%s", log)
			}
			if list := run(t, repo, "git", "worktree", "list"); strings.Count(list, "\n") != 0 {
				t.Errorf("worktree left behind:\n%s", list)
			}
		})
	}
}

func TestHealLogicBug(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	src, err := os.ReadFile("../../examples/testdata/logic-bug/series.go")
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.Replace(string(src), "return xs[len(xs)]", "return xs[len(xs)-1]", 1)
	wide := strings.Replace(strings.Replace(fixed, "t := 0", "t := 0 // sum", 1), "// Total adds", "// Total adds up", 1)
	worse := strings.Replace(string(src), "return xs[len(xs)]", "return xs[len(xs)-1] + undefinedA + undefinedB", 1)
	for _, tc := range []struct {
		name   string
		fixers func() []heal.Fixer
		want   outcome
	}{
		{"rules alone cannot", func() []heal.Fixer { return []heal.Fixer{&rules.Fixer{}} },
			outcome{outcome: results.OutcomeRed, reason: "no fixer produced", statuses: "failed", lines: []string{"LOGIC error in series.go line 9 → Fix: not fixed (failed: no fixer had a fix: rules: no rule matches series.go)"}}},
		{"scripted llm fixes it", func() []heal.Fixer { return []heal.Fixer{&rules.Fixer{}, scriptedFixer(t, fixed, 0.9)} },
			outcome{outcome: results.OutcomeGreen, statuses: "fixed", commits: 1, lines: []string{"LOGIC error in series.go line 9 → Fix: scripted fix"}}},
		{"too wide a diff is rejected", func() []heal.Fixer { return []heal.Fixer{scriptedFixer(t, wide, 0.9)} },
			outcome{outcome: results.OutcomeRed, statuses: "rejected", lines: []string{"outside the reported lines ±3"}}},
		{"low confidence is rejected", func() []heal.Fixer { return []heal.Fixer{scriptedFixer(t, fixed, 0.5)} },
			outcome{outcome: results.OutcomeRed, statuses: "rejected", lines: []string{"confidence 0.50 is below the threshold 0.70"}}},
		{"worse is reverted", func() []heal.Fixer { return []heal.Fixer{scriptedFixer(t, worse, 0.9)} },
			outcome{outcome: results.OutcomeRed, statuses: "failed,rejected", lines: []string{"reverted: it broke the lines it wrote", "the same fix was reverted in iteration 1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testrepo.Example(t, "logic-bug")
			before := userState(t, repo)
			o := options(t, repo, "", tc.fixers()...)
			o.KeepWorktree = heal.KeepAlways
			res, err := heal.Run(context.Background(), o)
			check(t, res, err, tc.want)
			if userState(t, repo) != before {
				t.Error("the user's work tree, index or branches changed")
			}
			got, _ := os.ReadFile(filepath.Join(o.WorktreeDir, "series.go"))
			if res.Outcome == results.OutcomeRed && string(got) != string(src) {
				t.Errorf("a red run left series.go changed in the worktree:\n%s", got)
			}
			if strings.Contains(tc.name, "llm") && (res.LLM.Requests != 1 || res.LLM.InputTokens != 500 || res.LLM.OutputTokens != 100) {
				t.Errorf("llm usage %+v", res.LLM)
			}
		})
	}
}

// TestMaxIterations heals a module where fixing one package reveals the
// errors of the package that imports it, with room for one iteration.
func TestMaxIterations(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	repo := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/two\n\ngo 1.22\n",
		"util/util.go": "package util\n\nimport \"os\"\n\n// Double doubles x.\nfunc Double(x int) int { return 2 * x }\n",
		"main.go":      "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/two/util\"\n)\n\nfunc main() {\n\tfmt.Println(util.Double(2), strings.Repeat(\"!\", 2))\n}\n",
	}
	for name, content := range files {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, repo, "git", "init", "-q", "-b", "main")
	run(t, repo, "git", "add", "-A")
	run(t, repo, "git", "commit", "-qm", "two packages")
	for _, tc := range []struct {
		max  int
		want outcome
	}{
		{1, outcome{outcome: results.OutcomeRed, reason: "max iterations (1) reached", statuses: "fixed", commits: 1}},
		{5, outcome{outcome: results.OutcomeGreen, statuses: "fixed,fixed", commits: 2}},
	} {
		t.Run(fmt.Sprint("max ", tc.max), func(t *testing.T) {
			o := options(t, repo, "go build ./...")
			o.MaxIterations = tc.max
			res, err := heal.Run(context.Background(), o)
			check(t, res, err, tc.want)
			if tc.max == 1 && (len(res.Remaining) != 1 || res.Remaining[0].FilePath != "main.go") {
				t.Errorf("remaining %+v, want main.go's undefined strings", res.Remaining)
			}
		})
	}
}

func TestHealPushToBareRemote(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	repo := testrepo.Example(t, "go-broken")
	remote := filepath.Join(t.TempDir(), "remote.git")
	run(t, repo, "git", "init", "-q", "--bare", remote)
	run(t, repo, "git", "remote", "add", "origin", remote)
	// The git agent refuses transports that need the user's consent; a
	// local bare remote is the file transport, allowed here by the user.
	run(t, repo, "git", "config", "protocol.file.allow", "always")
	// An uncommitted change of the user's: left alone, and warned about.
	if err := os.WriteFile(filepath.Join(repo, "sum.go"), []byte("package main\n\n// Sum is being rewritten.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := userState(t, repo)
	o := options(t, repo, "sh check.sh")
	o.Push, o.Branch = true, "salve/heal-push"
	res, err := heal.Run(context.Background(), o)
	check(t, res, err, outcome{outcome: results.OutcomeGreen, commits: 2})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "uncommitted changes") {
		t.Errorf("warnings %v", res.Warnings)
	}
	if userState(t, repo) != before {
		t.Error("the user's uncommitted change was touched")
	}
	if got := run(t, remote, "git", "rev-parse", "refs/heads/salve/heal-push"); got != res.HeadCommit || !res.Pushed {
		t.Errorf("remote has %s, heal's head is %s (pushed %v)", got, res.HeadCommit, res.Pushed)
	}
}

// TestRunStoreRecordsTheHeal checks what `salve runs show` reads.
func TestRunStoreRecordsTheHeal(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	repo := testrepo.Example(t, "go-broken")
	o := options(t, repo, "sh check.sh")
	o.Recorder = adapter.Recorder{Store: st}
	res, err := heal.Run(context.Background(), o)
	check(t, res, err, outcome{outcome: results.OutcomeGreen, commits: 2})
	v, err := st.View(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Run.Kind != store.KindHeal || v.Run.Status != results.OutcomeGreen || len(v.Events) != 3 || len(v.Patches) != 2 || len(v.Artifacts) != 1+len(res.Builds) {
		t.Errorf("stored run %s: %d events, %d patches, %d artifacts (results.json and %d build logs)", v.Run.RunID, len(v.Events), len(v.Patches), len(v.Artifacts), len(res.Builds))
	}
	for _, a := range v.Artifacts {
		if strings.HasPrefix(a.Name, "build-") && (a.Path == "" || a.Size == 0) {
			t.Errorf("build log artifact %+v has no file", a)
		}
	}
	timings, err := adapter.Timings(context.Background(), st, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{results.StageSetup, results.StageBuild, results.StageFix, results.StageVerify, results.StageCommit} {
		if timings[stage] <= 0 {
			t.Errorf("no stored time for stage %s: %v", stage, timings)
		}
	}
	var summary results.Results
	if err := json.Unmarshal(v.Run.Summary, &summary); err != nil || summary.Branch != res.Branch {
		t.Errorf("summary: %v %+v", err, summary.Branch)
	}
}

// TestCLIKilledMidRun kills `salve heal` with SIGKILL during its build,
// then runs it again: the user's tree, index and branches are byte for
// byte what they were, and the stale worktree is gone.
func TestCLIKilledMidRun(t *testing.T) {
	need(t, "sh", "sleep")
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	repo := testrepo.Example(t, "c-broken")
	before := userState(t, repo)
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "TMPDIR": t.TempDir(), "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": t.TempDir()})
	marker := filepath.Join(t.TempDir(), "building")
	args := []string{"heal", "--log-level", "info", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", "touch '" + marker + "'; sleep 5; exit 1"}
	// Start salve, wait until its worktree exists (it is then building),
	// and cancel: sandbox kills salve's whole process group with SIGKILL.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var res sandbox.Result
	var err error
	go func() {
		defer close(done)
		res, err = sandbox.Run(ctx, sandbox.Cmd{Path: salve, Args: args, Env: env, Timeout: time.Minute})
	}()
	// The build touches the marker: the kill then lands mid-build.
	deadline := time.Now().Add(time.Minute)
	for _, serr := os.Stat(marker); serr != nil || !strings.Contains(worktreeList(repo), "locked salve heal-worktree"); _, serr = os.Stat(marker) {
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("the build never started in a heal worktree: %v %s", err, res.Stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
	if err != nil || res.Signal != "killed" {
		t.Fatalf("first run: %v, signal %q, exit %d: %s", err, res.Signal, res.ExitCode, res.Stderr)
	}
	// The killed run's worktree stays (nothing ran to remove it); its
	// lock went with the process. The next run verifies, resets and
	// reuses it, and removes it when it ends.
	args[len(args)-1] = "true"
	res, err = sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: args, Env: env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("second run: %v exit %d: %s", err, res.ExitCode, res.Stderr)
	}
	if !strings.Contains(string(res.Stderr), `"reused":true`) {
		t.Errorf("second run did not reuse the worktree:\n%s", res.Stderr)
	}
	if list := worktreeList(repo); strings.Count(list, "worktree ") != 1 || strings.Contains(list, "salve") {
		t.Errorf("worktrees after the second run:\n%s", list)
	}
	if b := run(t, repo, "git", "branch", "--list", "salve/*"); b != "" {
		t.Errorf("heal branches though nothing was committed: %q", b)
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
}

// worktreeList is `git worktree list --porcelain` of repo, or "" while
// git cannot read it (a worktree being created).
func worktreeList(repo string) string {
	out, _ := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain").Output()
	return string(out)
}

// TestCLIExitCodes runs the binary for its exit statuses.
func TestCLIExitCodes(t *testing.T) {
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"), map[string]string{"SALVE_GIT_AGENT": gitAgent, "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": t.TempDir()})
	repo := testrepo.Example(t, "c-broken")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"green", []string{"--cmd", "true"}, 0},
		{"red", []string{"--cmd", "echo nothing to parse; exit 1"}, 1},
		{"bad input", []string{"--workspace", t.TempDir(), "--cmd", "true"}, 2},
		{"bad flag", []string{"--fixers", "magic"}, 2},
		{"branch taken", []string{"--cmd", "true", "--branch", "main"}, 2},
		{"no project to build", []string{"--workspace", repoWith(t, map[string]string{"README.md": "words\n"})}, 2},
		{"build tool missing", []string{"--cmd", "no-such-build-tool-xyz"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"heal", "--workspace", repo, "--isolation", "none", "--no-store"}, tc.args...)
			res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: args, Env: env, Timeout: time.Minute})
			if err != nil || res.ExitCode != tc.code {
				t.Errorf("exit %d (%v), want %d: %s", res.ExitCode, err, tc.code, res.Stderr)
			}
		})
	}
}

var _ = contract.ErrLogic

// fakeGitHub answers the check-runs and combined-status endpoints for the
// commits that exist in a bare remote, with the given conclusion; unknown
// commits are 404, as on GitHub before a push arrives.
func fakeGitHub(t *testing.T, remote, conclusion string, seen *[]string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer test-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		parts := strings.Split(r.URL.Path, "/") // /repos/acme/app/commits/SHA/what
		if len(parts) != 7 || parts[1] != "repos" || parts[2] != "acme" || parts[3] != "app" || parts[4] != "commits" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		sha := parts[5]
		res, err := sandbox.Run(r.Context(), sandbox.Cmd{Path: "git", Args: []string{"-C", remote, "cat-file", "-e", sha + "^{commit}"}, Env: sandbox.AllowedEnv()})
		if err != nil || res.ExitCode != 0 {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"message":"No commit found for SHA: %s"}`, sha)
			return
		}
		*seen = append(*seen, sha)
		w.Header().Set("Content-Type", "application/json")
		switch parts[6] {
		case "check-runs":
			fmt.Fprintf(w, `{"total_count":1,"check_runs":[{"id":1,"name":"build","head_sha":%q,"status":"completed","conclusion":%q}]}`, sha, conclusion)
		case "status":
			fmt.Fprintf(w, `{"state":"pending","sha":%q,"total_count":0,"statuses":[]}`, sha)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
}

func TestHealWithGitHubCI(t *testing.T) {
	need(t, "go")
	gitIdentity(t)
	for _, tc := range []struct {
		conclusion string
		want       outcome
	}{
		{"success", outcome{outcome: results.OutcomeGreen, commits: 2}},
		{"failure", outcome{outcome: results.OutcomeRed, reason: "CI is red: failed: build (failure)", commits: 2}},
	} {
		t.Run(tc.conclusion, func(t *testing.T) {
			repo := testrepo.Example(t, "go-broken")
			remote := filepath.Join(t.TempDir(), "remote.git")
			run(t, repo, "git", "init", "-q", "--bare", remote)
			run(t, repo, "git", "remote", "add", "origin", remote)
			run(t, repo, "git", "config", "protocol.file.allow", "always")
			var seen []string
			srv := fakeGitHub(t, remote, tc.conclusion, &seen)
			defer srv.Close()
			o := options(t, repo, "sh check.sh")
			o.Push = true
			api, err := forge.NewGitHub(forge.GitHubConfig{API: srv.URL, Repo: "acme/app", Token: "test-token"})
			if err != nil {
				t.Fatal(err)
			}
			o.CI = &ci.GitHub{API: api, Interval: 10 * time.Millisecond, Timeout: 10 * time.Second}
			res, err := heal.Run(context.Background(), o)
			check(t, res, err, tc.want)
			if res.CI == nil || res.CI.Source != "github" {
				t.Fatalf("verdict %+v", res.CI)
			}
			if len(seen) == 0 || seen[len(seen)-1] != res.HeadCommit {
				t.Errorf("the API was asked about %v, the heal head is %s", seen, res.HeadCommit)
			}
		})
	}
}

// TestSecretsStayOut runs salve heal with API keys and a GitHub token in
// its environment and a build that prints its whole environment: the keys
// reach neither the build, nor the logs, nor any record of the run.
func TestSecretsStayOut(t *testing.T) {
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	repo := testrepo.Example(t, "c-broken")
	state := t.TempDir()
	secrets := map[string]string{"OPENAI_API_KEY": "sk-test-secret-openai-1234", "ANTHROPIC_API_KEY": "sk-ant-test-secret-5678", "GITHUB_TOKEN": "ghp_testsecret9012"}
	over := map[string]string{"SALVE_GIT_AGENT": gitAgent, "XDG_STATE_HOME": state, "SALVE_STORE": filepath.Join(state, "runs.db"), "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": t.TempDir()}
	for k, v := range secrets {
		over[k] = v
	}
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"), over)
	args := []string{"heal", "--workspace", repo, "--isolation", "none", "--fixers", "rules", "--cmd", "env; make && make test"}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: args, Env: env, Timeout: 2 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("heal: %v exit %d: %s", err, res.ExitCode, res.Stderr)
	}
	var found []string
	look := func(where string, b []byte) {
		for k, v := range secrets {
			if strings.Contains(string(b), v) {
				found = append(found, k+" in "+where)
			}
		}
	}
	look("stdout", res.Stdout)
	look("stderr", res.Stderr)
	files := 0
	_ = filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			look(p, b)
			files++
		}
		return nil
	})
	if files < 3 {
		t.Fatalf("only %d files recorded under the state folder: the build logs and the store are expected there", files)
	}
	if len(found) > 0 {
		t.Errorf("secrets leaked: %v", found)
	}
	logs, _ := filepath.Glob(filepath.Join(state, "salve", "runs", "*", "build.log"))
	if len(logs) == 0 {
		t.Fatal("no build log recorded")
	}
	b, _ := os.ReadFile(logs[0])
	if !strings.Contains(string(b), "PATH=") {
		t.Errorf("the build did not print its environment:\n%s", b)
	}
}

// repoWith makes a git repository holding files, committed.
func repoWith(t *testing.T, files map[string]string) string {
	t.Helper()
	repo := t.TempDir()
	for name, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(t, repo, "git", "init", "-q", "-b", "main")
	run(t, repo, "git", "add", "-A")
	run(t, repo, "git", "commit", "-qm", "broken")
	return repo
}

// TestHealByScriptedLLMInPythonAndC runs the llm tier's path in the two
// other ecosystems: errors no rule fixes, fixed by a scripted model, and a
// scripted fix that makes the build worse, reverted.
func TestHealByScriptedLLMInPythonAndC(t *testing.T) {
	gitIdentity(t)
	cMakefile, _ := os.ReadFile("../../examples/testdata/c-broken/Makefile")
	cHeader, _ := os.ReadFile("../../examples/testdata/c-broken/calc.h")
	cTest, _ := os.ReadFile("../../examples/testdata/c-broken/calc_test.c")
	cSrc := "#include \"calc.h\"\n\n/* add returns the sum of a and b. */\nint add(int a, int b) {\n    return a + c;\n}\n\n/* scale multiplies x by factor. */\nint scale(int x, int factor) {\n    return x * factor;\n}\n"
	pySrc := "\"\"\"Statistics.\"\"\"\n\n\ndef mean(xs):\n    \"\"\"Return the mean of xs, or 0.0 for no values.\"\"\"\n    return sum(xs) / len(xs)\n"
	pyTest := "import unittest\n\nfrom stats import mean\n\n\nclass MeanTest(unittest.TestCase):\n    def test_empty(self):\n        self.assertEqual(mean([]), 0.0)\n\n    def test_values(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n"
	for _, tc := range []struct {
		lang, file, command string
		tools               []string
		files               map[string]string
		fixed, worse        string
		line                string
	}{
		{lang: "python", file: "stats.py", command: "python3 -m unittest discover -v", tools: []string{"python3"},
			files: map[string]string{"pyproject.toml": "[project]\nname = \"stats\"\n", "stats.py": pySrc, "test_stats.py": pyTest},
			fixed: strings.Replace(pySrc, "return sum(xs) / len(xs)", "return sum(xs) / len(xs) if xs else 0.0", 1),
			worse: strings.Replace(pySrc, "return sum(xs) / len(xs)", "return sum(xs) / len(xs) if xs else undefined_default", 1),
			line:  "LOGIC error in stats.py line 6"},
		{lang: "c", file: "calc.c", tools: []string{"cc", "make"},
			files: map[string]string{"Makefile": string(cMakefile), "calc.h": string(cHeader), "calc_test.c": string(cTest), "calc.c": cSrc},
			fixed: strings.Replace(cSrc, "a + c;", "a + b;", 1),
			worse: strings.Replace(cSrc, "    return a + c;", "    int d = e;\n    return a + c + d;", 1),
			line:  "error in calc.c line 5"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			need(t, tc.tools...)
			for _, mode := range []struct {
				name    string
				fixers  func() []heal.Fixer
				want    outcome
				changed bool
			}{
				{"rules alone cannot", func() []heal.Fixer { return []heal.Fixer{&rules.Fixer{}} },
					outcome{outcome: results.OutcomeRed, statuses: "failed", lines: []string{tc.line + " → Fix: not fixed (failed: no fixer had a fix: rules: no rule matches"}}, false},
				{"scripted llm fixes it", func() []heal.Fixer { return []heal.Fixer{&rules.Fixer{}, scriptedFixer(t, tc.fixed, 0.9)} },
					outcome{outcome: results.OutcomeGreen, statuses: "fixed", commits: 1, lines: []string{tc.line + " → Fix: scripted fix"}}, true},
				{"worse is reverted", func() []heal.Fixer { return []heal.Fixer{scriptedFixer(t, tc.worse, 0.9)} },
					outcome{outcome: results.OutcomeRed, statuses: "failed,rejected", lines: []string{"reverted: it broke the lines it wrote"}}, false},
			} {
				t.Run(mode.name, func(t *testing.T) {
					repo := repoWith(t, tc.files)
					before := userState(t, repo)
					o := options(t, repo, tc.command, mode.fixers()...)
					o.KeepWorktree = heal.KeepAlways
					res, err := heal.Run(context.Background(), o)
					check(t, res, err, mode.want)
					got, _ := os.ReadFile(filepath.Join(o.WorktreeDir, tc.file))
					if (string(got) != tc.files[tc.file]) != mode.changed {
						t.Errorf("%s in the worktree afterwards:\n%s", tc.file, got)
					}
					if userState(t, repo) != before {
						t.Error("the user's work tree, index or branches changed")
					}
				})
			}
		})
	}
}

// TestHealSubfolder heals a project that lives in a folder of a bigger
// repository: builds run there, paths stay relative to it, and the commit
// holds the fixed file at its place in the repository.
func TestHealSubfolder(t *testing.T) {
	need(t, "cc", "make")
	gitIdentity(t)
	files := map[string]string{"README.md": "monorepo\n"}
	for _, f := range []string{"Makefile", "calc.c", "calc.h", "calc_test.c"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "testdata", "c-broken", f))
		if err != nil {
			t.Fatal(err)
		}
		files["libs/calc/"+f] = string(b)
	}
	repo := repoWith(t, files)
	before := userState(t, repo)
	o := options(t, filepath.Join(repo, "libs", "calc"), "")
	res, err := heal.Run(context.Background(), o)
	check(t, res, err, outcome{outcome: results.OutcomeGreen, statuses: "fixed", commits: 1, lines: []string{"error in calc.c line 6 → Fix: add the missing ';'"}})
	if got := run(t, repo, "git", "show", "--name-only", "--format=", res.Branch); got != "libs/calc/calc.c" {
		t.Errorf("the fix commit holds %q", got)
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
}
