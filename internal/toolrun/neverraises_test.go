package toolrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// TestRunAiderNeverRaises feeds the adapter hostile requests and panics
// injected at every stage: each call returns a result, with the expected
// exit code, and nothing escapes.
func TestRunAiderNeverRaises(t *testing.T) {
	root := t.TempDir()
	good, err := BuildAiderToolRequest(AiderOptions{PromptFile: "/no/such/prompt", FileScope: []string{"a.py"},
		Workspace: contract.GitWorkspaceRefV1{RootPath: root}, TimeoutSeconds: 5})
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(r *contract.ToolRunRequestV1)) contract.ToolRunRequestV1 {
		r := good
		r.Cmd = append([]string(nil), good.Cmd...)
		f(&r)
		return r
	}
	for _, tc := range []struct {
		name     string
		req      contract.ToolRunRequestV1
		panicAt  string
		wantCode int
		wantErr  string
	}{
		{"zero request", contract.ToolRunRequestV1{}, "", contract.ExitRejected, "tool_id"},
		{"wrong tool", mutate(func(r *contract.ToolRunRequestV1) { r.ToolID = "codex" }), "", contract.ExitRejected, `tool_id is "codex"`},
		{"empty cmd", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd = nil }), "", contract.ExitRejected, "cmd[0]"},
		{"cmd is a path", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd[0] = "/usr/bin/aider" }), "", contract.ExitRejected, "cmd[0]"},
		{"relative cwd", mutate(func(r *contract.ToolRunRequestV1) { r.Cwd = "work" }), "", contract.ExitRejected, "absolute"},
		{"missing cwd", mutate(func(r *contract.ToolRunRequestV1) { r.Cwd = filepath.Join(root, "gone") }), "", contract.ExitRejected, "does not exist"},
		{"negative timeout", mutate(func(r *contract.ToolRunRequestV1) { r.TimeoutSeconds = -1 }), "", contract.ExitRejected, "negative"},
		{"no --yes", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd = append(r.Cmd[:2], r.Cmd[3:]...) }), "", contract.ExitRejected, "--yes"},
		{"--yes-always counts", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd[2] = "--yes-always" }), "", contract.ExitNotFound, ""},
		{"re-enabled commits", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd = append(r.Cmd, "--auto-commits") }), "", contract.ExitRejected, "forbidden"},
		{"abbreviated commits", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd = append(r.Cmd, "--dirty-com") }), "", contract.ExitRejected, "forbidden"},
		{"commit and exit", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd = append(r.Cmd, "--commit") }), "", contract.ExitRejected, "forbidden flag --commit"},
		{"commit prompt is fine", mutate(func(r *contract.ToolRunRequestV1) { r.Cmd = append(r.Cmd, "--commit-prompt", "p") }), "", contract.ExitNotFound, ""},
		{"escaping scope", mutate(func(r *contract.ToolRunRequestV1) { r.Context = map[string]any{"file_scope": []any{"../x"}} }), "", contract.ExitRejected, "relative path"},
		{"scope in .git", mutate(func(r *contract.ToolRunRequestV1) { r.Context = map[string]any{"file_scope": []any{".git/config"}} }), "", contract.ExitRejected, ".git directory"},
		{"panic in validate", good, "validate", contract.ExitExecError, "internal error: panic: boom at validate"},
		{"panic in snapshot", good, "snapshot", contract.ExitExecError, "boom at snapshot"},
		{"panic in run", good, "run", contract.ExitExecError, "boom at run"},
		{"panic in git", good, "git", contract.ExitExecError, "boom at git"},
		{"panic in scope", good, "scope", contract.ExitExecError, "boom at scope"},
		{"panic in finish", good, "finish", contract.ExitExecError, "boom at finish"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			a := &Adapter{Env: []string{"PATH=" + t.TempDir()}, Store: st}
			if tc.panicAt != "" {
				a.hook = func(stage string) {
					if stage == tc.panicAt {
						panic("boom at " + stage)
					}
				}
			}
			out := a.RunAider(context.Background(), tc.req, RunOptions{})
			if out.Result.ExitCode != tc.wantCode || !strings.Contains(out.Result.Stderr, tc.wantErr) {
				t.Fatalf("result %+v, want exit %d with %q", out.Result, tc.wantCode, tc.wantErr)
			}
			if out.Result.Succeeded() || out.Result.StartedAt == "" || out.Result.CompletedAt == "" {
				t.Errorf("result %+v", out.Result)
			}
			// Rejections and panics are in the audit trail too.
			run, err := st.GetRun(context.Background(), out.RunID)
			if err != nil {
				t.Fatal(err)
			}
			want := contract.RunRejected
			if tc.wantCode != contract.ExitRejected {
				want = contract.RunFailed
			}
			if run.Status != want {
				t.Errorf("stored status %q want %q", run.Status, want)
			}
		})
	}
}

func TestRunAiderPackageFunctionsNeverRaise(t *testing.T) {
	res := RunAider(context.Background(), contract.ToolRunRequestV1{ToolID: "aider"})
	if res.ExitCode != contract.ExitRejected {
		t.Errorf("RunAider: %+v", res)
	}
	res, rec := RunAiderRecord(context.Background(), contract.ToolRunRequestV1{})
	if res.ExitCode != contract.ExitRejected || rec.Status != contract.RunRejected || len(rec.Events) == 0 {
		t.Errorf("RunAiderRecord: %+v %+v", res, rec)
	}
}

// TestPanicAfterRunRevertsOutOfScope proves that a panic between the tool's
// run and the end of the scope check still puts back the tool's changes
// outside the file scope: a failure must not leave the work tree dirty.
func TestPanicAfterRunRevertsOutOfScope(t *testing.T) {
	// The test binary answers as the fake aider (TestMain) under that name.
	bin := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "aider")); err != nil {
		t.Fatal(err)
	}
	prompt := filepath.Join(t.TempDir(), "prompt.txt")
	msg := "write a.py a = 2\nwrite README.md hijacked\nwrite new.txt stray\nwrite .git/hooks/pre-commit planted\n"
	if err := os.WriteFile(prompt, []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"a.py": "a = 1\n", "README.md": "# readme\n"}
	for _, stage := range []string{"git", "scope", "finish"} {
		t.Run(stage, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			req, err := BuildAiderToolRequest(AiderOptions{Model: "gpt-4", PromptFile: prompt, FileScope: []string{"a.py"},
				Workspace: contract.GitWorkspaceRefV1{RootPath: root}, TimeoutSeconds: 60})
			if err != nil {
				t.Fatal(err)
			}
			a := &Adapter{Env: []string{"PATH=" + bin}}
			a.hook = func(s string) {
				if s == stage {
					panic("boom at " + s)
				}
			}
			out := a.RunAider(context.Background(), req, RunOptions{})
			if out.Result.ExitCode != contract.ExitExecError || !strings.Contains(out.Result.Stderr, "boom at "+stage) {
				t.Fatalf("result %+v", out.Result)
			}
			if b, err := os.ReadFile(filepath.Join(root, "a.py")); err != nil || string(b) != "a = 2\n" {
				t.Errorf("in-scope edit: %q %v, want it kept", b, err)
			}
			if b, err := os.ReadFile(filepath.Join(root, "README.md")); err != nil || string(b) != files["README.md"] {
				t.Errorf("out-of-scope edit left in the tree after the panic: %q %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(root, "new.txt")); !os.IsNotExist(err) {
				t.Errorf("out-of-scope file left in the tree after the panic: %v", err)
			}
			reverted := 0
			for _, ev := range out.Record.Events {
				if ev.Level == contract.LevelError && strings.HasPrefix(ev.Message, "Reverted out-of-scope") {
					reverted++
				}
			}
			if _, err := os.Lstat(filepath.Join(root, ".git")); !os.IsNotExist(err) {
				t.Errorf("planted .git left in the tree after the panic: %v", err)
			}
			if reverted != 2 || len(out.Record.ScopeViolations) != 3 {
				t.Errorf("%d revert events, violations %v; want 2 and 3", reverted, out.Record.ScopeViolations)
			}
		})
	}
}
