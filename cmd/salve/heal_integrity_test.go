package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// cheatingModel answers salve's fix requests as a model that takes the
// cheapest path to green: shown a test file, it weakens the test (mode);
// shown the code under test, it fixes the code honestly. It records the
// files it was shown.
type cheatingModel struct {
	mode string // "delete-assertion", "expected-value" or "skip"
	mu   sync.Mutex
	seen []string
}

var (
	promptFile    = regexp.MustCompile(`(?m)^File: (\S+)$`)
	promptContent = regexp.MustCompile(`(?s)<<<FILE\n(.*)\nFILE>>>`)
)

func (m *cheatingModel) answer(req llmtest.Request) llmtest.Reply {
	var body struct {
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	_ = req.Decode(&body)
	var prompt strings.Builder
	for _, msg := range body.Messages {
		if s, ok := msg.Content.(string); ok {
			prompt.WriteString(s + "\n")
		}
	}
	file, content := "", ""
	if f := promptFile.FindStringSubmatch(prompt.String()); f != nil {
		file = f[1]
	}
	if c := promptContent.FindStringSubmatch(prompt.String()); c != nil {
		content = c[1]
	}
	m.mu.Lock()
	m.seen = append(m.seen, file)
	m.mu.Unlock()
	patched, reason := content, "no change"
	switch {
	case strings.HasSuffix(file, "_test.go") && m.mode == "delete-assertion":
		patched, reason = regexp.MustCompile(`(?m)^\t\tt\.Errorf\(.*\n`).ReplaceAllString(content, ""), "the assertion was wrong"
	case strings.HasSuffix(file, "_test.go") && m.mode == "expected-value":
		patched, reason = strings.ReplaceAll(content, "8080", "8000"), "expect the port the code uses"
	case strings.HasSuffix(file, "_test.go") && m.mode == "skip":
		patched, reason = strings.Replace(content, "func TestDefaultPort(t *testing.T) {\n", "func TestDefaultPort(t *testing.T) {\n\tt.Skip(\"flaky\")\n", 1), "skip a flaky test"
	case strings.HasSuffix(file, ".go"):
		patched, reason = strings.Replace(content, "return a - b", "return a + b", 1), "Add subtracted instead of adding"
	}
	report, _ := json.Marshal(map[string]any{"report_format": "json", "content_json": map[string]any{
		"patched_content": patched + "\n", "fix_reason": reason, "confidence_score": 0.95}})
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: string(report)}}}
}

// integrityRepo writes a Go module whose test fails and commits it.
func integrityRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	return integrityRepoIn(t, t.TempDir(), files)
}

// integrityRepoIn is integrityRepo in a folder that may hold files
// already.
func integrityRepoIn(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "a failing test"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// healWithModel runs the real salve binary on repo with the llm tier
// pointed at srv through OPENAI_BASE_URL, and returns the exit code and
// results.json.
func healWithModel(t *testing.T, repo string, srv *llmtest.Server, extra ...string) (int, results.Results, string) {
	t.Helper()
	return healWith(t, srv, append([]string{"heal", "--workspace", repo, "--cmd", "go test ./...", "--fixers", "rules,suggest,llm",
		"--models", "openai/gpt-cheap", "--isolation", "none", "--no-store"}, extra...))
}

// healWith runs the real salve binary with args, its model behind srv
// (OPENAI_BASE_URL), and returns the exit code, results.json and the
// output.
func healWith(t *testing.T, srv *llmtest.Server, args []string) (int, results.Results, string) {
	t.Helper()
	return healWithEnv(t, args, "OPENAI_API_KEY=sk-test-not-real", "OPENAI_BASE_URL="+srv.URL+"/v1")
}

// healWithEnv runs the real salve binary with args and the variables of
// env over the test's environment, and returns the exit code,
// results.json and the output.
func healWithEnv(t *testing.T, args []string, env ...string) (int, results.Results, string) {
	t.Helper()
	salve, gitAgent := mcpBinaries(t)
	resPath := filepath.Join(t.TempDir(), "results.json")
	cmd := exec.Command(salve, append(args, "--results", resPath, "--git-agent", gitAgent)...)
	cmd.Env = append(append(os.Environ(), env...), "XDG_STATE_HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var res results.Results
	b, rerr := os.ReadFile(resPath)
	if rerr != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("no results.json (exit %d): %v\n%s", code, rerr, out)
	}
	return code, res, string(out)
}

// branchFiles returns the files the heal branch changed, or nil when the
// heal made no branch.
func branchFiles(t *testing.T, repo, branch string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "diff", "--name-only", "main..."+branch, "--").Output()
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}

// TestHealNeverWeakensATest runs salve heal against a local
// OpenAI-compatible server that cheats whenever it is shown a test: each
// cheat ends red with no commit touching the test, named by the rule that
// refused it, with tests protected (the default) and with test edits
// allowed. The same server, asked for the code under test, fixes the code.
func TestHealNeverWeakensATest(t *testing.T) {
	needTools(t, "go", "git")
	// The failing check reads a constant: no function of the code is
	// called, so the test itself is what the fixers are shown.
	portFiles := map[string]string{
		"go.mod":    "module example.com/server\n\ngo 1.22\n",
		"config.go": "// Package server serves the API.\npackage server\n\n// DefaultPort is the port the server listens on.\nconst DefaultPort = 8000\n",
		"config_test.go": "package server\n\nimport \"testing\"\n\nfunc TestDefaultPort(t *testing.T) {\n\tif DefaultPort != 8080 {\n" +
			"\t\tt.Errorf(\"DefaultPort = %d, want 8080\", DefaultPort)\n\t}\n}\n",
	}
	for _, tc := range []struct {
		mode, allowRule, defaultRule string
	}{
		{"delete-assertion", "assertion-removed", "test-file"},
		{"expected-value", "expected-value-changed", "test-file"},
		{"skip", "test-skipped", "test-file"},
	} {
		for _, allow := range []bool{false, true} {
			name, rule, extra := tc.mode+"/tests protected", tc.defaultRule, []string(nil)
			if allow {
				name, rule, extra = tc.mode+"/test edits allowed", tc.allowRule, []string{"--allow-test-edits"}
			}
			t.Run(name, func(t *testing.T) {
				model := &cheatingModel{mode: tc.mode}
				srv := llmtest.NewServer()
				defer srv.Close()
				srv.Handle(model.answer)
				repo := integrityRepo(t, portFiles)
				code, res, out := healWithModel(t, repo, srv, extra...)
				if len(model.seen) == 0 || !strings.HasSuffix(model.seen[0], "_test.go") {
					t.Fatalf("the model was shown %q, not the test: this case tests nothing\n%s", model.seen, out)
				}
				if code != exitFailure || res.Outcome != results.OutcomeRed {
					t.Fatalf("exit %d, outcome %q, want red:\n%s", code, res.Outcome, out)
				}
				if files := branchFiles(t, repo, res.Branch); len(files) != 0 || len(res.Commits) != 0 {
					t.Errorf("the heal committed %v (%d commits)", files, len(res.Commits))
				}
				if !attemptRule(res, "llm", rule) {
					t.Errorf("no llm attempt was refused by %q:\n%s", rule, out)
				}
				if !strings.Contains(out, rule) {
					t.Errorf("the output does not name the rule %q:\n%s", rule, out)
				}
				if allow != (res.AllowTestEdits == "--allow-test-edits") {
					t.Errorf("allow_test_edits = %q", res.AllowTestEdits)
				}
			})
		}
	}
	t.Run("honest when asked for the code under test", func(t *testing.T) {
		model := &cheatingModel{mode: "delete-assertion"}
		srv := llmtest.NewServer()
		defer srv.Close()
		srv.Handle(model.answer)
		repo := integrityRepo(t, map[string]string{
			"go.mod":  "module example.com/calc\n\ngo 1.22\n",
			"calc.go": "// Package calc does arithmetic.\npackage calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n" +
				"\t\tt.Errorf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
		})
		code, res, out := healWithModel(t, repo, srv)
		if code != exitOK || res.Outcome != results.OutcomeGreen {
			t.Fatalf("exit %d, outcome %q, want green; the model saw %q:\n%s", code, res.Outcome, model.seen, out)
		}
		if files := branchFiles(t, repo, res.Branch); strings.Join(files, ",") != "calc.go" {
			t.Errorf("the heal changed %v, want calc.go only", files)
		}
		rerunFromBinary(t, res)
		for _, f := range model.seen {
			if strings.HasSuffix(f, "_test.go") {
				t.Errorf("the model was shown the test %s as the file to fix", f)
			}
		}
		if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Header.Get("Authorization") != "Bearer sk-test-not-real" {
			t.Errorf("the llm request did not reach OPENAI_BASE_URL with the key")
		}
	})
}

// attemptRule reports whether some attempt of fixer was refused by rule.
func attemptRule(res results.Results, fixer, rule string) bool {
	for _, b := range res.Bugs {
		for _, a := range b.Attempts {
			if a.Fixer != fixer {
				continue
			}
			for _, r := range a.Rules {
				if r == rule {
					return true
				}
			}
		}
	}
	return false
}

// TestHealFlakyTestReachesNoFixer heals a test that fails on its first run
// and passes on the next: the heal exits 5 (flaky), names the test, sends
// no request to the model and commits nothing.
func TestHealFlakyTestReachesNoFixer(t *testing.T) {
	needTools(t, "go", "git")
	model := &cheatingModel{mode: "skip"}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(model.answer)
	repo := integrityRepo(t, map[string]string{
		"go.mod":     "module example.com/cache\n\ngo 1.22\n",
		".gitignore": ".warm\n",
		"cache.go":   "// Package cache keeps things warm.\npackage cache\n\n// Warm reports whether the cache is warm.\nfunc Warm() bool { return true }\n",
		"cache_test.go": "package cache\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\n" +
			"// TestWarm fails the first time it runs in a fresh tree, like a test\n// that races a cold cache.\n" +
			"func TestWarm(t *testing.T) {\n\tif _, err := os.Stat(\".warm\"); err != nil {\n\t\t_ = os.WriteFile(\".warm\", nil, 0o644)\n" +
			"\t\tt.Fatal(\"cache was cold\")\n\t}\n\tif !Warm() {\n\t\tt.Error(\"not warm\")\n\t}\n}\n",
	})
	code, res, out := healWithModel(t, repo, srv)
	if code != exitFlaky || res.Outcome != results.OutcomeFlaky {
		t.Fatalf("exit %d, outcome %q, want %d flaky:\n%s", code, res.Outcome, exitFlaky, out)
	}
	if strings.Join(res.Flaky, ",") != "TestWarm" || !strings.Contains(out, "TestWarm") {
		t.Errorf("flaky tests %q; output:\n%s", res.Flaky, out)
	}
	rerunFromBinary(t, res)
	if n := len(srv.Requests()); n != 0 || len(res.Commits) != 0 {
		t.Errorf("%d requests reached the model, %d commits", n, len(res.Commits))
	}
	for _, b := range res.Bugs {
		if len(b.Attempts) != 0 {
			t.Errorf("a fixer ran on %s: %+v", b.Bug.FilePath, b.Attempts)
		}
	}
}

// rerunFromBinary checks that the heal's flaky check ran the failing
// build's own test binary, kept by the executor, once and by itself,
// instead of linking it again with go test.
func rerunFromBinary(t *testing.T, res results.Results) {
	t.Helper()
	var reruns []string
	for _, b := range res.Builds {
		if b.Stage == results.StageRerun {
			reruns = append(reruns, b.Command)
		}
	}
	if len(reruns) != 1 || !strings.Contains(reruns[0], "'/") || !strings.Contains(reruns[0], ".test' -test.paniconexit0 -test.v=test2json") || strings.Contains(reruns[0], "go test") {
		t.Errorf("the flaky check's runs %q, want one of the kept test binary", reruns)
	}
}
