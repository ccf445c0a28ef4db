package service_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/service"
	"github.com/salve-dev/salve/internal/testrepo"
)

// protectedBare is a bare repository whose default branch, main, holds a
// .salve.yml protecting main.go, and whose branch feature adds a commit
// on top (the change under heal, which cannot loosen main's rules).
func protectedBare(t *testing.T) string {
	t.Helper()
	work := testrepo.Example(t, "go-broken")
	if err := os.WriteFile(filepath.Join(work, ".salve.yml"), []byte("protected_paths: [main.go]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", ".salve.yml")
	gitRun(t, work, "commit", "-qm", "protect main.go")
	gitRun(t, work, "checkout", "-q", "-b", "feature")
	// The change tries to lift the protection: it must not count.
	if err := os.WriteFile(filepath.Join(work, ".salve.yml"), []byte("protected_paths: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "commit", "-qam", "lift it")
	bare := filepath.Join(t.TempDir(), "protected.git")
	gitRun(t, "", "clone", "-q", "--bare", work, bare)
	gitRun(t, bare, "symbolic-ref", "HEAD", "refs/heads/main")
	return bare
}

// TestWorkerHonoursBaseRules: a job of a branch is healed under the
// rules its repository's default branch sets: the fix to the protected
// main.go is refused by rule protected-path, the other file is fixed,
// and the branch's own attempt to lift the protection does not count.
func TestWorkerHonoursBaseRules(t *testing.T) {
	salve, agent := binaries(t)
	api, _ := serve(t, salve, agent, t.TempDir(), "--isolation", "none")
	bare := protectedBare(t)
	id := submit(t, api, `{"repo":"file://`+bare+`","ref":"feature","cmd":"sh check.sh","fixers":"rules"}`)
	j := waitFinal(t, api, []string{id})[id]
	if j.Results == nil {
		t.Fatalf("job %s: no results (%s)", j.Status, j.Error)
	}
	res := j.Results
	if res.RepoConfig == nil || res.RepoConfig.Rev == "" || !strings.Contains(strings.Join(res.RepoConfig.Applied, ";"), "protected_paths: main.go") {
		t.Fatalf("repo_config %+v: the default branch's file was not applied", res.RepoConfig)
	}
	refused, fixedSum := false, false
	for _, b := range res.Bugs {
		for _, a := range b.Attempts {
			if b.Bug.FilePath == "main.go" && strings.Contains(a.Reason, integrity.RuleProtectedPath) {
				refused = true
			}
		}
		if b.Bug.FilePath == "sum.go" && b.Status == "fixed" {
			fixedSum = true
		}
		if b.Bug.FilePath == "main.go" && b.Status == "fixed" {
			t.Errorf("the protected main.go was fixed: %+v", b)
		}
	}
	if !refused || !fixedSum {
		t.Errorf("status %s: main.go refused by %s: %v, sum.go fixed: %v; bugs %+v", j.Status, integrity.RuleProtectedPath, refused, fixedSum, res.Bugs)
	}
	if j.Status == service.StatusGreen {
		t.Errorf("the job is green though main.go could not be fixed")
	}
}
