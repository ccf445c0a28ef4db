package service_test

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/service"
)

// TestWorkerPublishesAsTheCLI: a job asking for a pull request and a
// check run gets what salve heal --push --pr --check-run gives the same
// repository: the same request title and body, and a check run with the
// same conclusion, title, summary and annotations on the same commit,
// but for the run's own branch and request number.
func TestWorkerPublishesAsTheCLI(t *testing.T) {
	salve, agent := binaries(t)
	srv := forgetest.New("forge-token")
	t.Cleanup(srv.Close)
	srv.AddRepo("github", "acme/api")
	t.Setenv("GITHUB_TOKEN", "forge-token")
	t.Setenv("GITHUB_API_URL", srv.GitHubAPI())
	dir := filepath.Join(t.TempDir(), "acme")
	bare := filepath.Join(dir, "api.git")
	gitRun(t, "", "clone", "-q", "--bare", bareBroken(t, "src"), bare)

	// salve heal in a clone, as a CI job would run it.
	work := filepath.Join(t.TempDir(), "work")
	gitRun(t, "", "clone", "-q", bare, work)
	cmd := exec.Command(salve, "heal", "--workspace", work, "--isolation", "none", "--no-store", "--cmd", "sh check.sh", "--fixers", "rules",
		"--push", "--pr", "--check-run")
	cmd.Env = append(testEnv(agent), "GITHUB_REPOSITORY=acme/api")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("salve heal: %v\n%s", err, out)
	}
	// The same heal as a job.
	api, _ := serve(t, salve, agent, t.TempDir(), "--isolation", "none")
	id := submit(t, api, `{"repo":"file://`+bare+`","ref":"main","cmd":"sh check.sh","fixers":"rules","pr":true,"check_run":true}`)
	j := waitFinal(t, api, []string{id})[id]
	if j.Status != service.StatusGreen || j.PullRequest == "" || len(j.Warnings) != 0 {
		t.Fatalf("job %s %q request %q warnings %v", j.Status, j.Error, j.PullRequest, j.Warnings)
	}

	prs := srv.PRs("github", "acme/api")
	checks := srv.CheckRuns("acme/api")
	if len(prs) != 2 || len(checks) != 2 {
		t.Fatalf("%d requests and %d check runs, want 2 of each (the CLI's, the job's)", len(prs), len(checks))
	}
	cli, job := prs[0], prs[1]
	if job.Head != j.Branch || cli.Head == job.Head || cli.Base != "main" || job.Base != "main" {
		t.Errorf("heads %q and %q, bases %q and %q", cli.Head, job.Head, cli.Base, job.Base)
	}
	// What differs between two runs: their ids, branches and numbers.
	runSpecific := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|salve/heal[-/][\w./-]+|#\d+|/pull/\d+|\b[0-9a-f]{7,40}\b|\d+(\.\d+)?\s?s\b`)
	norm := func(s string) string { return runSpecific.ReplaceAllString(s, "…") }
	if cli.Title != job.Title || norm(cli.Body) != norm(job.Body) {
		t.Errorf("request text differs:\nCLI %q\n%s\njob %q\n%s", cli.Title, cli.Body, job.Title, job.Body)
	}
	a, b := checks[0], checks[1]
	if a.HeadSHA != b.HeadSHA || a.Conclusion != b.Conclusion || a.Title != b.Title || norm(a.Summary) != norm(b.Summary) ||
		!reflect.DeepEqual(a.Annotations, b.Annotations) || a.Name != b.Name {
		t.Errorf("check runs differ:\nCLI %+v\njob %+v", a, b)
	}
	if a.Conclusion != "success" || len(a.Annotations) == 0 || !strings.Contains(a.Summary, "### Fixes") {
		t.Errorf("the check run shows no healed build: %+v", a)
	}
}
