package heal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// ciRepo makes a broken project whose origin is a local bare repository,
// as a CI checkout would have it, and returns it with the remote.
func ciRepo(t *testing.T) (repo, remote string) {
	t.Helper()
	repo = testrepo.Example(t, "go-broken")
	remote = filepath.Join(t.TempDir(), "remote.git")
	run(t, repo, "git", "init", "-q", "--bare", remote)
	run(t, repo, "git", "remote", "add", "origin", remote)
	run(t, repo, "git", "config", "protocol.file.allow", "always")
	run(t, repo, "git", "push", "-q", "origin", "main")
	return repo, remote
}

// binDir holds the binaries the tests built, as a release would unpack them.
func binDir(t *testing.T) string {
	t.Helper()
	gitAgent, salve := heal.Binaries()
	if filepath.Dir(gitAgent) != filepath.Dir(salve) {
		t.Fatal("the test binaries are not in one folder")
	}
	return filepath.Dir(salve)
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]+?)\s*\}\}`)

// TestGitHubActionSteps runs the `run:` steps of action.yml, in order,
// with the inputs' defaults, as the runner would: the install step, then
// the heal step, against a local GitHub API server. An expression the
// test does not know fails it, so the action cannot drift from what is
// tested.
func TestGitHubActionSteps(t *testing.T) {
	need(t, "go", "bash")
	raw, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Run  string            `yaml:"run"`
				Uses string            `yaml:"uses"`
				Env  map[string]string `yaml:"env"`
				Dir  string            `yaml:"working-directory"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) < 2 {
		t.Fatalf("action.yml: %+v", action.Runs)
	}
	srv := forgetest.New(prToken)
	defer srv.Close()
	srv.AddRepo("github", "acme/app")
	repo, remote := ciRepo(t)
	before := userState(t, repo)
	runner := t.TempDir()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	subst := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			key := strings.TrimSpace(expr.FindStringSubmatch(m)[1])
			switch {
			case key == "github.action_path":
				return root
			case key == "github.token":
				return prToken
			case strings.HasPrefix(key, "inputs."):
				in, ok := action.Inputs[strings.TrimPrefix(key, "inputs.")]
				if !ok {
					t.Fatalf("action.yml uses unknown input %s", key)
				}
				if strings.Contains(in.Default, "${{") {
					return expr.ReplaceAllString(in.Default, prToken)
				}
				return in.Default
			}
			t.Fatalf("action.yml uses an expression this test does not know: %s", m)
			return ""
		})
	}
	ghOutput, ghPath := filepath.Join(runner, "output"), filepath.Join(runner, "path")
	env := map[string]string{
		"GITHUB_API_URL": srv.GitHubAPI(), "GITHUB_REPOSITORY": "acme/app", "GITHUB_REF_NAME": "main", "GITHUB_REF_TYPE": "branch",
		"GITHUB_OUTPUT": ghOutput, "GITHUB_PATH": ghPath, "RUNNER_TEMP": runner, "SALVE_FROM": binDir(t),
		"SALVE_BIN_DIR": filepath.Join(runner, "salve-bin"), "SALVE_ISOLATION_OVERRIDE": "",
	}
	base := sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
	var healOut string
	for i, step := range action.Runs.Steps {
		if step.Run == "" {
			continue // a `uses:` step (none today) is not ours to test
		}
		stepEnv := map[string]string{}
		for k, v := range env {
			stepEnv[k] = v
		}
		for k, v := range step.Env {
			stepEnv[k] = subst(v)
		}
		// The heal runs without a sandbox here: bwrap may be missing.
		if _, ok := stepEnv["SALVE_ISOLATION"]; ok {
			stepEnv["SALVE_ISOLATION"] = "none"
		}
		dir := repo
		if step.Dir != "" {
			dir = filepath.Join(repo, subst(step.Dir))
		}
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "bash", Args: []string{"-e", "-c", subst(step.Run)}, Dir: dir,
			Env: sandbox.MergeEnv(base, stepEnv), Timeout: 5 * time.Minute})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("step %d (%s): exit %d (%v)\n%s\n%s", i, step.ID, res.ExitCode, err, res.Stdout, res.Stderr)
		}
		if step.ID == "heal" {
			healOut = string(res.Stdout)
		}
		if strings.Contains(string(res.Stdout)+string(res.Stderr), prToken) {
			t.Fatalf("step %d printed the token", i)
		}
	}
	prs := srv.PRs("github", "acme/app")
	if len(prs) != 1 || prs[0].Base != "main" || !strings.Contains(prs[0].Body, "→ Fix:") {
		t.Fatalf("pull requests: %+v", prs)
	}
	run(t, remote, "git", "rev-parse", "refs/heads/"+prs[0].Head)
	if out, _ := os.ReadFile(ghOutput); !strings.Contains(string(out), "exit-code=0") {
		t.Errorf("GITHUB_OUTPUT: %q", out)
	}
	if p, _ := os.ReadFile(ghPath); !strings.Contains(string(p), "salve-bin") {
		t.Errorf("GITHUB_PATH: %q", p)
	}
	if !strings.Contains(healOut, "::error file=") {
		t.Errorf("no workflow-command annotations in the heal step's output:\n%s", healOut)
	}
	sarif, err := os.ReadFile(filepath.Join(repo, "salve.sarif"))
	if err != nil || !json.Valid(sarif) {
		t.Errorf("salve.sarif: %v", err)
	}
	// The report files are the CI job's; everything else is untouched.
	_ = os.Remove(filepath.Join(repo, "salve.sarif"))
	if userState(t, repo) != before {
		t.Error("the checkout changed")
	}
}

// TestGitLabTemplate runs the script of the .salve-heal job template as
// GitLab's runner would (one shell, the job's variables), against a local
// GitLab API server.
func TestGitLabTemplate(t *testing.T) {
	need(t, "go", "bash")
	raw, err := os.ReadFile(filepath.Join("..", "..", "ci", "salve.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var tmpl map[string]struct {
		When      string            `yaml:"when"`
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
		Artifacts struct {
			Reports map[string]string `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal(raw, &tmpl); err != nil {
		t.Fatal(err)
	}
	job, ok := tmpl[".salve-heal"]
	if !ok || job.When != "on_failure" || len(job.Script) == 0 {
		t.Fatalf("template: %+v", tmpl)
	}
	srv := forgetest.New(prToken)
	defer srv.Close()
	srv.AddRepo("gitlab", "acme/app")
	repo, remote := ciRepo(t)
	env := map[string]string{}
	keys := make([]string, 0, len(job.Variables))
	for k := range job.Variables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env[k] = job.Variables[k]
	}
	for k, v := range map[string]string{"GITLAB_CI": "true", "CI_API_V4_URL": srv.GitLabAPI(), "CI_PROJECT_ID": "acme/app",
		"GITLAB_TOKEN": prToken, "CI_COMMIT_BRANCH": "main", "SALVE_FROM": binDir(t), "SALVE_BIN_DIR": filepath.Join(t.TempDir(), "bin")} {
		env[k] = v
	}
	script := strings.Join(job.Script, "\n")
	base := sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "bash", Args: []string{"-e", "-c", script}, Dir: repo, Env: sandbox.MergeEnv(base, env), Timeout: 5 * time.Minute})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d (%v)\n%s\n%s", res.ExitCode, err, res.Stdout, res.Stderr)
	}
	if strings.Contains(string(res.Stdout)+string(res.Stderr), prToken) {
		t.Fatal("the job printed the token")
	}
	mrs := srv.PRs("gitlab", "acme/app")
	if len(mrs) != 1 || mrs[0].Base != "main" || !strings.Contains(mrs[0].Body, "→ Fix:") {
		t.Fatalf("merge requests: %+v", mrs)
	}
	run(t, remote, "git", "rev-parse", "refs/heads/"+mrs[0].Head)
	report := job.Artifacts.Reports["codequality"]
	b, err := os.ReadFile(filepath.Join(repo, report))
	var issues []map[string]any
	if err != nil || json.Unmarshal(b, &issues) != nil || len(issues) == 0 || issues[0]["fingerprint"] == "" {
		t.Errorf("code quality report %s: %v %s", report, err, b)
	}
}
