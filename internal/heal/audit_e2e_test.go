package heal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/testrepo"
)

// startHeal starts the salve binary on repo with the run store at db and
// a build that sleeps, and waits until the run is recorded as building.
func startHeal(t *testing.T, repo, db string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	gitAgent, salve := heal.Binaries()
	cmd := exec.Command(salve, "heal", "--workspace", repo, "--isolation", "none", "--store", db, "--cmd", "sleep 8; exit 1")
	cmd.Env = sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "TMPDIR": t.TempDir(), "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": t.TempDir()})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if r, ok := latestHeal(t, db); ok && r.Status == store.StatusRunning && strings.Contains(string(r.Summary), `"stage":"build"`) {
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the heal was never recorded as building:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// latestHeal reads the most recent heal run of the store at db.
func latestHeal(t *testing.T, db string) (store.Run, bool) {
	t.Helper()
	if _, err := os.Stat(db); err != nil {
		return store.Run{}, false
	}
	st, err := store.OpenContext(context.Background(), db)
	if err != nil {
		return store.Run{}, false
	}
	defer st.Close()
	runs, err := st.ListRuns(context.Background(), store.RunFilter{Kind: store.KindHeal, Limit: 1})
	if err != nil || len(runs) == 0 {
		return store.Run{}, false
	}
	return runs[0], true
}

func getRun(t *testing.T, db, id string) store.Run {
	t.Helper()
	st, err := store.OpenContext(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAuditTrailSIGKILL kills the real binary with SIGKILL mid-build: the
// run is in the store from the start, at its stage, and the next heal of
// any repository marks it interrupted (issue 11, finding 8).
func TestAuditTrailSIGKILL(t *testing.T) {
	need(t, "sh", "sleep")
	gitIdentity(t)
	repo := testrepo.Example(t, "c-broken")
	before := userState(t, repo)
	db := filepath.Join(t.TempDir(), "runs.db")
	cmd, _ := startHeal(t, repo, db)
	killed, _ := latestHeal(t, db)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if r := getRun(t, db, killed.RunID); r.Status != store.StatusRunning {
		t.Fatalf("the killed run's status is %q before the next start", r.Status)
	}
	// The next heal marks it interrupted.
	gitAgent, salve := heal.Binaries()
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "TMPDIR": t.TempDir(), "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": t.TempDir()})
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: []string{"heal", "--workspace", repo, "--isolation", "none", "--store", db, "--cmd", "true"}, Env: env, Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("second run: %v exit %d: %s", err, res.ExitCode, res.Stderr)
	}
	r := getRun(t, db, killed.RunID)
	if r.Status != store.StatusInterrupted || r.CompletedAt == "" || !strings.Contains(string(r.Summary), `"stage":"build"`) {
		t.Errorf("the killed run after the next start: status %q, completed %q, summary %s", r.Status, r.CompletedAt, r.Summary)
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
}

// TestAuditTrailSIGTERM sends SIGTERM to the real binary mid-build: it
// ends within seconds, records the run as interrupted, removes its
// worktree, leaves no branch and prints a summary line that says so.
func TestAuditTrailSIGTERM(t *testing.T) {
	need(t, "sh", "sleep")
	gitIdentity(t)
	repo := testrepo.Example(t, "c-broken")
	before := userState(t, repo)
	db := filepath.Join(t.TempDir(), "runs.db")
	cmd, stderr := startHeal(t, repo, db)
	id, _ := latestHeal(t, db)
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("salve did not end within 20 s of SIGTERM:\n%s", stderr)
	}
	t.Logf("ended %s after SIGTERM", time.Since(start).Round(time.Millisecond))
	r := getRun(t, db, id.RunID)
	if r.Status != store.StatusInterrupted {
		t.Errorf("status %q, want interrupted; summary %s", r.Status, r.Summary)
	}
	var sum results.Results
	if err := json.Unmarshal(r.Summary, &sum); err != nil || sum.Outcome != results.OutcomeInterrupted || sum.Reason == "" {
		t.Errorf("summary %s", r.Summary)
	}
	if line := summaryLine(stderr.String()); !strings.HasPrefix(line, "salve heal: interrupted after 0 iteration(s): interrupted: ") {
		t.Errorf("summary line %q in:\n%s", line, stderr)
	}
	if list := worktreeList(repo); strings.Count(list, "worktree ") > 2 || strings.Contains(list, "branch refs/heads/salve/") {
		t.Errorf("worktrees after SIGTERM:\n%s", list)
	}
	if b := run(t, repo, "git", "branch", "--list", "salve/*"); b != "" {
		t.Errorf("a heal branch was left though nothing was committed: %q", b)
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
}

// summaryLine returns heal's closing summary line from stderr: the
// last line that begins "salve heal: " (a warning may come before it).
func summaryLine(s string) string {
	line := ""
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "salve heal: ") {
			line = l
		}
	}
	return line
}
