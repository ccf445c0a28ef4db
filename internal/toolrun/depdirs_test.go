package toolrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

func hasEvent(rec contract.RunRecordV1, level, substr string) bool {
	for _, ev := range rec.Events {
		if ev.Level == level && strings.Contains(ev.Message, substr) {
			return true
		}
	}
	return false
}

// TestBytecodeCachesAreCleared: .pyc files the run wrote are deleted
// (a planted one would run instead of its source); the run still succeeds.
func TestBytecodeCachesAreCleared(t *testing.T) {
	root := newWorkTree(t)
	writeTree(t, root, map[string]string{"src/__pycache__/util.cpython-311.pyc": "old bytecode"})
	req := aiderRequest(t, root, []string{"src/app.py"},
		"write src/app.py x = 2",
		"write src/__pycache__/app.cpython-311.pyc planted",
		"write __pycache__/top.cpython-311.pyc planted")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Fatalf("result %+v status %s", out.Result, out.Record.Status)
	}
	for _, p := range []string{"src/__pycache__/app.cpython-311.pyc", "__pycache__/top.cpython-311.pyc"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s left", p)
		}
	}
	if readFile(t, filepath.Join(root, "src/__pycache__/util.cpython-311.pyc")) != "old bytecode" {
		t.Errorf("untouched cache file removed")
	}
	if !hasEvent(out.Record, contract.LevelWarn, "Deleted 2 bytecode cache files") {
		t.Errorf("no WARN event: %+v", out.Record.Events)
	}
}

// TestDependencyFoldersAreWatched: a file planted in node_modules is
// removed, a changed one reported; both fail the run.
func TestDependencyFoldersAreWatched(t *testing.T) {
	root := newWorkTree(t)
	writeTree(t, root, map[string]string{"node_modules/left-pad/index.js": "module.exports = 1\n", ".venv/bin/activate": "# venv\n"})
	req := aiderRequest(t, root, []string{"src/app.py"},
		"write node_modules/evil/index.js require('child_process')",
		"append node_modules/left-pad/index.js require('child_process')",
		"write .venv/bin/pytest #!/bin/sh",
		"write node_modules/.cache/eslint/x cache data")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Fatalf("result %+v", out.Result)
	}
	for _, p := range []string{"node_modules/evil", ".venv/bin/pytest"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("%s left", p)
		}
	}
	if !hasEvent(out.Record, contract.LevelError, "node_modules/left-pad/index.js in a dependency folder; NOT reverted") {
		t.Errorf("changed dependency not reported: %+v", out.Record.Events)
	}
	if _, err := os.Lstat(filepath.Join(root, "node_modules/.cache/eslint/x")); err != nil {
		t.Errorf("node_modules/.cache is a cache and is left alone: %v", err)
	}
}

// TestToolConfigIsNeverKept: aider's own config in the tree (whose
// test-cmd runs on its next start) is reverted even in scope; its history
// is its own and kept.
func TestToolConfigIsNeverKept(t *testing.T) {
	root := newWorkTree(t)
	req := aiderRequest(t, root, []string{"src/app.py", ".aider.conf.yml"},
		"write .aider.conf.yml test-cmd:\\stouch\\s/tmp/planted", "write src/app.py x = 2")
	out := newAdapter(t).RunAider(context.Background(), req, toolrun.RunOptions{})
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Fatalf("result %+v", out.Result)
	}
	if _, err := os.Lstat(filepath.Join(root, ".aider.conf.yml")); err == nil {
		t.Errorf(".aider.conf.yml left")
	}
	if _, err := os.Stat(filepath.Join(root, ".aider.chat.history.md")); err != nil {
		t.Errorf("aider's history removed: %v", err)
	}
}
