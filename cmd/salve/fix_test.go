package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// TestFixConfinesPaths: a bug report, or a log, that names a file outside
// the workspace (by .., an absolute path or a symlink) is refused before
// anything is read, so the file never reaches file_snippet or a model.
func TestFixConfinesPaths(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.go")
	const marker = "TOPSECRET-contents-of-a-file-outside"
	if err := os.WriteFile(secret, []byte("package x\n// "+marker+"\nimport \"os\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "sub", "dir")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(ws, secret)
	if err != nil {
		t.Fatal(err)
	}
	bug := func(path string) string {
		return `{"file_path":"` + path + `","line_number":3,"error_type":"IMPORT","message":"\"os\" imported and not used"}`
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"dot-dot", rel, "outside the workspace"},
		{"deep dot-dot", "../../../../../../../../.." + secret, "outside the workspace"},
		{"absolute", secret, "outside the workspace"},
		{"symlink to a file outside", "link.go", "outside the workspace"},
		{"through a symlinked folder", "sub/dir/secret.go", "outside the workspace"},
		{"fifo", "fifo.go", "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSalve(t, "fix", "--workspace", ws, "--fixers", "rules", "--bug", bug(tc.path))
			if code != exitBadInput || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d stderr %q, want %d containing %q", code, errOut, exitBadInput, tc.want)
			}
			if strings.Contains(out+errOut, marker) {
				t.Errorf("the outside file's content was printed:\n%s%s", out, errOut)
			}
		})
	}
	// The same holds for reports taken from a log.
	log := filepath.Join(t.TempDir(), "build.log")
	if err := os.WriteFile(log, []byte("link.go:3:8: \"os\" imported and not used\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runSalve(t, "fix", "--workspace", ws, "--fixers", "rules", "--log", log)
	if code == exitOK || strings.Contains(out+errOut, marker) {
		t.Errorf("--log through a symlink: exit %d\n%s%s", code, out, errOut)
	}
}

// TestConfigFIFOInWorkingDirectory: an .ai-agent.json that is a FIFO (a
// repository can hold anything once its build has run) leaves the llm tier
// out with a warning instead of blocking salve in open.
func TestConfigFIFOInWorkingDirectory(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nimport \"os\"\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(cwd, ".ai-agent.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	t.Setenv("HOME", t.TempDir())
	bug := `{"file_path":"main.go","line_number":3,"error_type":"IMPORT","message":"\"os\" imported and not used"}`
	done := make(chan struct{})
	var code int
	var errOut string
	go func() {
		defer close(done)
		code, _, errOut = runSalve(t, "fix", "--workspace", ws, "--bug", bug)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("salve fix blocked on a FIFO named .ai-agent.json")
	}
	if code != exitOK || !strings.Contains(errOut, "not a regular file (a FIFO)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestFixSendsHealsRequest: salve fix gives the tiers the very request
// salve heal gives them for the same reports (every report's message, the
// related reports, the snippet of their lines).
func TestFixSendsHealsRequest(t *testing.T) {
	ws := t.TempDir()
	src := "package main\n\nimport \"os\"\nimport \"io\"\n\nfunc main() {}\n"
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	group := []contract.BugReport{
		{FilePath: "main.go", LineNumber: 3, ErrorType: contract.ErrImport, Message: `"os" imported and not used`},
		{FilePath: "main.go", LineNumber: 4, ErrorType: contract.ErrImport, Message: `"io" imported and not used`},
	}
	bugs, err := json.Marshal(group)
	if err != nil {
		t.Fatal(err)
	}
	_, out, errOut := runSalve(t, "fix", "--workspace", ws, "--fixers", "rules", "--bug", string(bugs))
	var got []struct {
		Request contract.FixRequest `json:"request"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v:\n%s\n%s", err, out, errOut)
	}
	in, _, err := heal.PrepareFix(context.Background(), heal.FixPlan{Workspace: ws, Group: group})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(in.Request)
	have, _ := json.Marshal(got[0].Request)
	if string(have) != string(want) {
		t.Errorf("salve fix sent\n%s\nsalve heal sends\n%s", have, want)
	}
}
