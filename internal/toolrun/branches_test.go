package toolrun_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
)

// TestOtherToolByProfile runs a tool that is only a row added to the
// profile table: the adapter's steps are the same.
func TestOtherToolByProfile(t *testing.T) {
	root := newWorkTree(t)
	row := toolrun.Profile{
		ToolID: "shell-edit", Binary: "sh", Template: []string{"-c", "{script}"},
		ForcedEnv: map[string]string{"SHELL_EDIT_SAFE": "1"},
	}
	a := newAdapter(t)
	a.Profiles = append(toolrun.DefaultProfiles(), row)
	req, err := toolrun.BuildToolRequest(row, toolrun.ToolInputs{
		Params: map[string]string{"script": `echo "$SHELL_EDIT_SAFE" > notes.txt; echo x >> README.md`},
		Cwd:    root, Context: map[string]any{toolrun.ContextFileScope: []string{"notes.txt"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), req, toolrun.RunOptions{FileScope: []string{"notes.txt"}})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunScopeViolated {
		t.Fatalf("result %+v status %s", out.Result, out.Record.Status)
	}
	if got := readFile(t, filepath.Join(root, "notes.txt")); got != "1\n" {
		t.Errorf("forced env not seen: %q", got)
	}
	if got := readFile(t, filepath.Join(root, "README.md")); got != baseTree["README.md"] {
		t.Errorf("out-of-scope edit kept: %q", got)
	}
	// The aider entry point refuses it, and an unknown tool is rejected.
	if o := a.RunAider(context.Background(), req, toolrun.RunOptions{}); o.Result.ExitCode != contract.ExitRejected {
		t.Errorf("RunAider ran another tool: %+v", o.Result)
	}
	req.ToolID = "unknown"
	if o := a.Run(context.Background(), req, toolrun.RunOptions{}); o.Result.ExitCode != contract.ExitRejected ||
		!strings.Contains(o.Result.Stderr, "no profile") {
		t.Errorf("unknown tool: %+v", o.Result)
	}
}

func TestToolKilledBySignal(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, nil, "stdout before", "killself")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != contract.ExitExecError || out.Result.TimedOut || !strings.Contains(out.Result.Stderr, "killed by signal: killed") ||
		!strings.Contains(out.Result.Stdout, "before") {
		t.Errorf("result %+v", out.Result)
	}
}

func TestSnapshotLimits(t *testing.T) {
	root := newWorkTree(t)
	a := newAdapter(t)
	a.Limits = toolrun.Limits{MaxFiles: 2}
	out := a.RunAider(context.Background(), aiderRequest(t, root, nil, "write src/app.py x"), toolrun.RunOptions{})
	if out.Result.ExitCode != contract.ExitRejected || !strings.Contains(out.Result.Stderr, "too many files") {
		t.Errorf("too many files: %+v", out.Result)
	}
	if got := readFile(t, filepath.Join(root, "src/app.py")); got != baseTree["src/app.py"] {
		t.Error("the tool ran although the tree could not be checked")
	}
	// A changed file whose content was not kept is reported, not restored.
	a.Limits = toolrun.Limits{MaxFileBytes: 4}
	out = a.RunAider(context.Background(), aiderRequest(t, root, []string{"src/app.py"}, "append README.md more"), toolrun.RunOptions{})
	if out.Record.Status != contract.RunScopeViolated || len(out.Record.Patches) != 1 || out.Record.Patches[0].Reverted {
		t.Fatalf("status %s patches %+v", out.Record.Status, out.Record.Patches)
	}
	found := false
	for _, ev := range out.Record.Events {
		found = found || (ev.Level == contract.LevelError && strings.Contains(ev.Message, "NOT reverted") && strings.Contains(ev.Message, "not kept"))
	}
	if !found {
		t.Errorf("no ERROR event for the file that could not be restored: %+v", out.Record.Events)
	}
}

func TestStoreFailureIsLoggedNotRaised(t *testing.T) {
	root := newWorkTree(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close() // every write will fail
	var logs bytes.Buffer
	a := newAdapter(t)
	a.Store = st
	a.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	out := a.RunAider(context.Background(), aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x"), toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Errorf("result %+v", out.Result)
	}
	if !strings.Contains(logs.String(), "toolrun: store") || !strings.Contains(logs.String(), out.RunID) {
		t.Errorf("store failure not logged: %q", logs.String())
	}
	if _, err := os.Stat(filepath.Join(root, "src/app.py")); err != nil {
		t.Error(err)
	}
}
