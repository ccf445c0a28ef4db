package heal_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
)

// healCLI runs the salve binary's heal on repo with no LLM provider in the
// environment and returns its exit code, stdout, stderr and results.
func healCLI(t *testing.T, repo string, args ...string) (int, string, string, results.Results) {
	t.Helper()
	return healCLIEnv(t, repo, nil, args...)
}

// healCLIEnv is healCLI with more environment variables.
func healCLIEnv(t *testing.T, repo string, extra map[string]string, args ...string) (int, string, string, results.Results) {
	t.Helper()
	gitIdentity(t)
	gitAgent, salve := heal.Binaries()
	vars := map[string]string{"SALVE_GIT_AGENT": gitAgent, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "HOME": t.TempDir()}
	for k, v := range extra {
		vars[k] = v
	}
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"), vars)
	resPath := filepath.Join(t.TempDir(), "results.json")
	full := append([]string{"heal", "--workspace", repo, "--isolation", "none", "--no-store", "--results", resPath}, args...)
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: full, Env: env, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var r results.Results
	if b, err := os.ReadFile(resPath); err == nil {
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
	}
	return res.ExitCode, string(res.Stdout), string(res.Stderr), r
}

// TestCLIRedHealSaysWhatToDo: a type error no tier fixes prints the
// compiler's message, what each tier did, and the exact flags that enable
// the llm tier; the summary is complete and the by-type tally is there.
func TestCLIRedHealSaysWhatToDo(t *testing.T) {
	repo := repoWith(t, map[string]string{
		"go.mod":  "module example.com/greet\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = \"hi\"\n\tfmt.Println(n)\n}\n",
	})
	code, out, errOut, res := healCLI(t, repo, "--cmd", "go build ./...")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"TYPE_ERROR error in main.go line 6 → Fix: not fixed (failed: no fixer had a fix: history: no change of the breaking commit to learn from (it has no parent commit); rules: no rule matches main.go; ",
		"; llm: not configured)\n",
		"    message: cannot use \"hi\" (untyped string constant) as int value in variable declaration\n",
		"    suggest: ",
		"    llm: not configured (no LLM provider is configured): set OPENAI_API_KEY and run salve heal --fixers history,rules,suggest,llm --models openai/gpt-4o",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "salve heal: red after 1 iteration(s): no fixer produced an acceptable fix; nothing committed, no branch made; results: ") {
		t.Errorf("summary:\n%s", errOut)
	}
	if res.ByType["TYPE_ERROR"] != (results.TypeRate{Found: 1, Left: 1}) {
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
	if res.Outcome != results.OutcomeEnvironment || res.Environment == nil || len(res.Commits) != 0 || len(res.Bugs) != 0 {
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

// TestCLILLMUnreachable: when the llm tier is configured but its provider
// cannot be reached, the red bug says so, with the provider's error.
func TestCLILLMUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	repo := repoWith(t, map[string]string{
		"go.mod":  "module example.com/greet\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = \"hi\"\n\tfmt.Println(n)\n}\n",
	})
	code, out, errOut, _ := healCLIEnv(t, repo, map[string]string{"OLLAMA_HOST": "http://" + addr}, "--cmd", "go build ./...")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "\n    llm: failed: ") || !strings.Contains(out, "connection refused") || !strings.Contains(out, "    rules: no rule matches main.go\n") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestCLIEnvironmentKinds: a missing tool, a killed build and a build
// past its time limit each end with exit 3, the kind and the evidence.
func TestCLIEnvironmentKinds(t *testing.T) {
	repo := repoWith(t, map[string]string{"main.c": "int main(void) { return 0; }\n"})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing tool", []string{"--cmd", "cmake-acme-zz --build build"}, "environment failure (missing_tool, shell): sh: 1: cmake-acme-zz: not found"},
		{"killed", []string{"--cmd", "echo compiling; kill -9 $$"}, "environment failure (out_of_memory, system): compiling"},
		{"timeout", []string{"--cmd", "echo running tests; sleep 30", "--timeout", "1"}, "environment failure (timeout, system): running tests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut, res := healCLI(t, repo, tc.args...)
			if code != 3 || !strings.Contains(out, tc.want) || len(res.Commits) != 0 || res.Outcome != results.OutcomeEnvironment {
				t.Errorf("exit %d, outcome %s, stdout:\n%s\nstderr tail: %s", code, res.Outcome, out, lastLines(errOut, 2))
			}
		})
	}
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], "\n")
}
