package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"
)

func TestFixCommand(t *testing.T) {
	ws := t.TempDir()
	src := "package main\n\nimport \"os\"\n\nfunc main() {}\n"
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bug := `{"file_path":"main.go","line_number":3,"error_type":"IMPORT","message":"\"os\" imported and not used"}`
	code, out, errOut := runSalve(t, "fix", "--workspace", ws, "--fixers", "rules", "--bug", bug)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []struct {
		File     string `json:"file"`
		Line     string `json:"line"`
		Accepted *struct {
			PatchedContent string `json:"patched_content"`
		} `json:"accepted"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(got) != 1 || got[0].Accepted == nil || got[0].Accepted.PatchedContent != "package main\n\nfunc main() {}\n" ||
		got[0].Line != `IMPORT error in main.go line 3 → Fix: remove unused import "os"` {
		t.Errorf("output:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != src {
		t.Error("salve fix wrote the file")
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"fix"}, exitBadInput, "give --bug JSON or --log FILE"},
		{[]string{"fix", "--bug", "{not json"}, exitBadInput, "not a BugReport"},
		{[]string{"fix", "--workspace", ws, "--fixers", "rules", "--bug", `{"file_path":"main.go","line_number":5,"error_type":"LOGIC","message":"wrong"}`}, exitFailure, ""},
		{[]string{"heal", "--fixers", "llm", "--workspace", ws}, exitBadInput, "no model configured"},
		{[]string{"heal", "--ci", "travis", "--workspace", ws}, exitBadInput, "--ci: want local or github"},
		{[]string{"heal", "--ci", "github", "--github-repo", "a/b", "--workspace", ws}, exitBadInput, "--push: ci github judges the pushed commit"},
	} {
		code, _, errOut := runSalve(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit %d stderr %q, want %d containing %q", tc.args, code, errOut, tc.code, tc.err)
		}
	}
}

func TestFinalLines(t *testing.T) {
	res := &results.Results{Bugs: []results.BugResult{
		{Status: results.StatusFailed, Line: "a first try"},
		{Status: results.StatusFixed, Line: "b fixed"},
		{Status: results.StatusRejected, Line: "c rejected"},
	}}
	res.Bugs[0].Bug.FilePath, res.Bugs[0].Bug.Message = "x.go", "m1"
	res.Bugs[1].Bug.FilePath, res.Bugs[1].Bug.Message = "x.go", "m1"
	res.Bugs[2].Bug.FilePath, res.Bugs[2].Bug.Message = "y.go", "m2"
	if got := strings.Join(finalLines(res), "|"); got != "b fixed|c rejected" {
		t.Errorf("finalLines = %q", got)
	}
}

// TestFixGatesWithRepoRules: salve fix judges with the repository's
// .salve.yml, read from the commit given: a fix to a protected file is
// refused by rule protected-path, as a heal would refuse it.
func TestFixGatesWithRepoRules(t *testing.T) {
	needTools(t, "git")
	_, gitAgent := mcpBinaries(t)
	ws := t.TempDir()
	src := "package main\n\nimport \"os\"\n\nfunc main() {}\n"
	for name, content := range map[string]string{"main.go": src, ".salve.yml": "protected_paths: [main.go]\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, ws, "init", "-q", "-b", "main")
	git(t, ws, "add", "-A")
	git(t, ws, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "init")
	bug := `{"file_path":"main.go","line_number":3,"error_type":"IMPORT","message":"\"os\" imported and not used"}`
	code, out, errOut := runSalve(t, "fix", "--workspace", ws, "--git-agent", gitAgent, "--repo-config-ref", "HEAD", "--fixers", "rules", "--bug", bug)
	if code != exitFailure || !strings.Contains(out, "protected-path") || strings.Contains(out, `"accepted": {`) {
		t.Errorf("exit %d, want %d with the fix refused by protected-path:\n%s\n%s", code, exitFailure, out, errOut)
	}
	code, out, errOut = runSalve(t, "fix", "--workspace", ws, "--git-agent", gitAgent, "--no-repo-config", "--fixers", "rules", "--bug", bug)
	if code != exitOK || strings.Contains(out, "protected-path") {
		t.Errorf("--no-repo-config: exit %d:\n%s\n%s", code, out, errOut)
	}
}
