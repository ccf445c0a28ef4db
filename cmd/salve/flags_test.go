package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/salve-dev/salve/internal/store"
)

// TestFlagValidation: every bad value is refused before anything runs,
// with exit 2 and a message that names the flag.
func TestFlagValidation(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	bug := `{"file_path":"a.txt","line_number":1,"error_type":"SYNTAX","message":"x"}`
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"heal negative iterations", []string{"heal", "--workspace", ws, "--max-iterations", "-1"}, "--max-iterations must be from 1"},
		{"heal zero iterations", []string{"heal", "--workspace", ws, "--max-iterations", "0"}, "--max-iterations must be from 1"},
		{"heal huge iterations", []string{"heal", "--workspace", ws, "--max-iterations", "100000"}, "--max-iterations must be from 1"},
		{"heal NaN confidence", []string{"heal", "--workspace", ws, "--min-confidence", "NaN"}, "--min-confidence must be a number from 0 to 1"},
		{"heal confidence above 1", []string{"heal", "--workspace", ws, "--min-confidence", "1.5"}, "--min-confidence"},
		{"heal negative confidence", []string{"heal", "--workspace", ws, "--min-confidence", "-0.1"}, "--min-confidence"},
		{"heal infinite confidence", []string{"heal", "--workspace", ws, "--min-confidence", "+Inf"}, "--min-confidence"},
		{"heal zero timeout", []string{"heal", "--workspace", ws, "--timeout", "0"}, "--timeout must be a positive"},
		{"heal negative ci timeout", []string{"heal", "--workspace", ws, "--ci-timeout", "-5s"}, "--ci-timeout must be a positive"},
		{"heal unknown isolation", []string{"heal", "--workspace", ws, "--isolation", "chroot"}, "--isolation must be one of"},
		{"heal remote like an option", []string{"heal", "--workspace", ws, "--push", "--remote", "--upload-pack=x"}, "--remote must name a remote"},
		{"heal branch like an option", []string{"heal", "--workspace", ws, "--branch", "-D"}, "--branch must not start"},
		{"heal workspace missing", []string{"heal", "--workspace", filepath.Join(ws, "nope")}, "--workspace"},
		{"heal workspace a file", []string{"heal", "--workspace", file}, "not a folder"},
		{"fix NaN confidence", []string{"fix", "--workspace", ws, "--bug", bug, "--min-confidence", "NaN"}, "--min-confidence"},
		{"fix workspace a file", []string{"fix", "--workspace", file, "--bug", bug}, "not a folder"},
		{"fix log a device", []string{"fix", "--workspace", ws, "--log", "/dev/zero"}, "not a regular file"},
		{"fix log a folder", []string{"fix", "--workspace", ws, "--log", ws}, "not a regular file"},
		{"fix config a device", []string{"fix", "--workspace", ws, "--bug", bug, "--fixers", "llm", "--models", "openai/x", "--config", "/dev/zero"}, "not a regular file"},
		{"fix config a fifo", []string{"fix", "--workspace", ws, "--bug", bug, "--fixers", "llm", "--models", "openai/x", "--config", fifo}, "not a regular file"},
		{"fix log a fifo", []string{"fix", "--workspace", ws, "--log", fifo}, "not a regular file"},
		{"parse a fifo", []string{"parse", fifo}, "not a regular file"},
		{"heal config a device", []string{"heal", "--workspace", ws, "--fixers", "llm", "--models", "openai/x", "--config", "/dev/zero"}, "not a regular file"},
		{"exec negative max-log", []string{"exec", "--workspace", ws, "--max-log", "-1"}, "--max-log must be"},
		{"exec env with =", []string{"exec", "--workspace", ws, "--env", "=x"}, "--env takes a variable name"},
		{"exec env with value", []string{"exec", "--workspace", ws, "--env", "A=b"}, "--env takes a variable name"},
		{"exec empty env", []string{"exec", "--workspace", ws, "--env", ""}, "--env takes a variable name"},
		{"exec zero timeout", []string{"exec", "--workspace", ws, "--timeout", "0"}, "--timeout must be a positive"},
		{"exec unknown isolation", []string{"exec", "--workspace", ws, "--isolation", "vm"}, "--isolation must be one of"},
		{"parse a device", []string{"parse", "/dev/zero"}, "not a regular file"},
		{"parse a folder", []string{"parse", ws}, "not a regular file"},
		{"runs negative limit", []string{"runs", "list", "--store", filepath.Join(ws, "runs.db"), "--limit", "-3"}, "--limit must be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSalve(t, tc.args...)
			if code != exitBadInput || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d stderr %q, want %d containing %q", code, errOut, exitBadInput, tc.want)
			}
			if out != "" {
				t.Errorf("stdout %q: nothing should be printed", out)
			}
		})
	}
}

// TestReadOnlyCommandsCreateNothing: the commands that only read leave a
// missing store or registry missing, and an existing one byte-identical.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "sub", "runs.db")
	reg := filepath.Join(dir, "reg", "registry.db")
	for _, args := range [][]string{
		{"runs", "--store", db, "list"},
		{"runs", "--store", db, "list", "--json"},
		{"runs", "--store", db, "show", "latest"},
		{"runs", "--store", db, "patch", "latest"},
		{"runs", "--store", db, "artifact", "latest", "build.log"},
	} {
		code, _, errOut := runSalve(t, args...)
		if code != exitBadInput || !strings.Contains(errOut, "run store not found") {
			t.Errorf("%v: exit %d stderr %q, want 2 saying the run store is not found", args, code, errOut)
		}
	}
	code, out, errOut := runSalve(t, "registry", "list", "--registry-db", reg, "--json")
	if code != exitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("registry list of a missing file: exit %d out %q err %q", code, out, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("read-only commands created %v", entries)
	}
}

// TestReadOnlyCommandsLeaveTheStore: listing and showing runs leaves an
// existing store's folder byte-identical (no migration, no -wal or -shm).
func TestReadOnlyCommandsLeaveTheStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	st := openStore(t, db)
	if _, err := st.CreateRun(context.Background(), store.Run{RunID: "run-1", Kind: "exec", Status: "passed", Title: "make"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		entries, _ := os.ReadDir(dir)
		var b strings.Builder
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			fmt.Fprintf(&b, "%s %x\n", e.Name(), sha256.Sum256(data))
		}
		return b.String()
	}
	before := state()
	for _, args := range [][]string{{"runs", "--store", db, "list"}, {"runs", "--store", db, "show", "run-1", "--json"}} {
		code, out, errOut := runSalve(t, args...)
		if code != exitOK || !strings.Contains(out, "run-1") {
			t.Errorf("%v: exit %d out %q err %q", args, code, out, errOut)
		}
	}
	if after := state(); after != before {
		t.Errorf("the store's folder changed:\nbefore:\n%safter:\n%s", before, after)
	}
}
