package heal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/heal"
	"github.com/salve-dev/salve/sandbox"
)

// healCLI runs the salve binary's heal on repo with no LLM provider in the
// environment and returns its exit code, stdout, stderr and results.
func healCLI(t *testing.T, repo string, args ...string) (int, string, string, heal.Results) {
	t.Helper()
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "HOME": t.TempDir()})
	resPath := filepath.Join(t.TempDir(), "results.json")
	full := append([]string{"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--results", resPath}, args...)
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: full, Env: env, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var r heal.Results
	if b, err := os.ReadFile(resPath); err == nil {
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
	}
	return res.ExitCode, string(res.Stdout), string(res.Stderr), r
}

// TestCLIRedHealSaysWhatToDo: a misspelt call no tier fixes prints the
// compiler's message, what each tier did, and the exact flags that enable
// the llm tier; the summary is complete and the by-type tally is there.
func TestCLIRedHealSaysWhatToDo(t *testing.T) {
	repo := repoWith(t, map[string]string{
		"go.mod":  "module example.com/greet\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Prinln(\"hi\")\n}\n",
	})
	code, out, errOut, res := healCLI(t, repo, "--cmd", "go build ./...")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"TYPE_ERROR error in main.go line 6 → Fix: not fixed (failed: no fixer had a fix: rules: no rule matches main.go; llm: not configured)\n",
		"    message: undefined: fmt.Prinln\n",
		"    llm: not configured (no LLM provider is configured): set OPENAI_API_KEY and run salve heal --fixers rules,llm --models openai/gpt-4o",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "salve heal: red after 1 iteration(s): no fixer produced an acceptable fix; branch salve/heal-") {
		t.Errorf("summary:\n%s", errOut)
	}
	if res.ByType["TYPE_ERROR"] != (heal.TypeRate{Found: 1, Left: 1}) {
		t.Errorf("by_type %+v", res.ByType)
	}
}

// TestCLIEnvironmentExit3: a dependency that cannot be fetched is an
// environment failure: exit 3, the evidence on stdout, no commit, and the
// user's checkout untouched.
func TestCLIEnvironmentExit3(t *testing.T) {
	repo := repoWith(t, map[string]string{
		"go.mod":  "module example.com/x\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"github.com/acme/colorize\"\n\nfunc main() { colorize.Red(\"x\") }\n",
	})
	head := run(t, repo, "git", "rev-parse", "HEAD")
	code, out, errOut, res := healCLI(t, repo, "--cmd", "go build ./...")
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "environment failure (network, go): main.go:3:8: cannot find module providing package github.com/acme/colorize: module lookup disabled by GOPROXY=off") ||
		!strings.Contains(out, "nothing was sent to a fixer") || !strings.Contains(out, "next: ") {
		t.Errorf("stdout:\n%s", out)
	}
	if res.Outcome != heal.OutcomeEnvironment || res.Environment == nil || len(res.Commits) != 0 || len(res.Bugs) != 0 {
		t.Errorf("results: outcome %s env %+v commits %d bugs %d", res.Outcome, res.Environment, len(res.Commits), len(res.Bugs))
	}
	if !strings.Contains(errOut, "salve heal: environment after 0 iteration(s): the build failed because of its environment (network)") {
		t.Errorf("summary:\n%s", errOut)
	}
	if got := run(t, repo, "git", "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved")
	}
	if st := run(t, repo, "git", "status", "--porcelain"); st != "" {
		t.Errorf("status %q", st)
	}
}
