package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

const parseSampleLog = `2026-11-23T03:00:00.0000000Z ##[group]Run go build ./...
2026-11-23T03:00:01.0000000Z /workspace/app/cmd/api/main.go:12:5: undefined: handler
2026-11-23T03:00:02.0000000Z /usr/local/go/src/fmt/print.go:3:1: not ours
`

// TestNewParseCmdFlags checks flag parsing alone.
func TestNewParseCmdFlags(t *testing.T) {
	var got *parseOptions
	s := &streams{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	cmd := newParseCmdWith(s, func(o *parseOptions) int { got = o; return exitOK })
	cmd.SetArgs([]string{"--root", "/workspace/app", "--workspace", ".", "--text", "build.log"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Root != "/workspace/app" || got.Workspace != "." || !got.Text || got.Log != "build.log" {
		t.Errorf("options = %+v", got)
	}
	cmd = newParseCmdWith(s, func(o *parseOptions) int { return exitOK })
	cmd.SetArgs([]string{})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil {
		t.Error("no LOG argument: want an error")
	}
}

func runParse(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"parse"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestParseRunJSONFromStdin(t *testing.T) {
	code, out, errOut := runParse(t, parseSampleLog, "--root", "/workspace/app", "-")
	if code != exitOK {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	var got []contract.BugReport
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s", err, out)
	}
	if len(got) != 1 || got[0].FilePath != "cmd/api/main.go" || got[0].LineNumber != 12 || got[0].ErrorType != contract.ErrTypeError {
		t.Errorf("reports = %+v", got)
	}
}

func TestParseRunTextAndEmpty(t *testing.T) {
	code, out, _ := runParse(t, parseSampleLog, "--text", "--root", "/workspace/app", "-")
	if code != exitOK || out != "cmd/api/main.go:12:5: TYPE_ERROR undefined: handler [go]\n" {
		t.Errorf("--text: code %d out %q", code, out)
	}
	code, out, _ = runParse(t, "all good\nok  \texample.com/m\t0.1s\n", "-")
	if code != exitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("clean log: code %d out %q, want []", code, out)
	}
}

func TestParseRunBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"missing file":    {filepath.Join(dir, "nope.log")},
		"directory":       {dir},
		"bad workspace":   {"--workspace", filepath.Join(dir, "nope"), "-"},
		"two logs":        {"a.log", "b.log"},
		"unknown flag":    {"--bogus", "-"},
		"score not a dir": {"--score", filepath.Join(dir, "nope")},
		"score empty dir": {"--score", dir},
	} {
		if code, _, _ := runParse(t, "", args...); code != exitBadInput {
			t.Errorf("%s: code %d, want %d", name, code, exitBadInput)
		}
	}
}

func TestParseRunFileWorkspaceListScore(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "svc", "db.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "build.log")
	body := "Traceback (most recent call last):\n  File \"/elsewhere/checkout/svc/db.py\", line 1, in <module>\nValueError: boom\n"
	if err := os.WriteFile(log, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runParse(t, "", "--text", "--workspace", ws, log)
	if code != exitOK || !strings.HasPrefix(out, "svc/db.py:1: LOGIC ValueError: boom") {
		t.Errorf("--workspace: code %d out %q err %q", code, out, errOut)
	}
	code, out, _ = runParse(t, "", "--list")
	if code != exitOK || !strings.Contains(out, "python-traceback") {
		t.Errorf("--list: code %d out %q", code, out)
	}
	code, out, _ = runParse(t, "", "--text", "--score", filepath.Join("..", "..", "internal", "heal", "logparse", "testdata", "corpus"))
	if code != exitOK || !strings.Contains(out, "recall") {
		t.Errorf("--score: code %d out %q", code, out)
	}
}

// TestParseRunRootIndexedWhenLocal: a --root that exists here is indexed,
// so a path written from a subdirectory is found by suffix.
func TestParseRunRootIndexedWhenLocal(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "svc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "svc", "db.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := "Traceback (most recent call last):\n  File \"db.py\", line 1, in <module>\nValueError: boom\n"
	code, out, _ := runParse(t, log, "--text", "--root", root, "-")
	if code != exitOK || !strings.HasPrefix(out, "svc/db.py:1: LOGIC ValueError: boom") {
		t.Errorf("code %d out %q", code, out)
	}
}
