package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// writeSessionFile writes a shared session file as an attacker would
// shape it: a short conversation whose accounting names origin.
func writeSessionFile(t *testing.T, path, origin string) {
	t.Helper()
	res := contract.AIAgentResult{
		Success: true,
		Conversation: []contract.Message{
			{Role: contract.RoleSystem, Content: "sys"},
			{Role: contract.RoleUser, Content: "earlier question"},
			{Role: contract.RoleAssistant, Content: "earlier answer"},
		},
		Accounting: []contract.AccountingEntry{{Type: contract.AccountingLLM, TxnID: origin, OriginTxnID: origin}},
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(res); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestResumeHostileOriginTxnID runs the real binary with --resume on a
// shared session file whose originTxnId climbs out of the sessions folder
// and out of --save-all's folder: the run is refused and nothing is
// written outside the folders the user named.
func TestResumeHostileOriginTxnID(t *testing.T) {
	bin := aiAgentBinary(t)
	srv := echoProvider(t, 0)
	cases := []struct{ name, origin string }{
		{"parent dirs", "../../../x"},
		{"absolute", "/tmp/../x"},
		{"slash inside", "a/b"},
		{"dot dot", ".."},
		{"hidden", ".bashrc"},
		{"newline", "x\ny"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := headendDir(t, srv)
			work := filepath.Join(dir, "a", "b")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			shared := filepath.Join(dir, "shared.json.gz")
			writeSessionFile(t, shared, tc.origin)
			before := listTree(t, dir)

			cmd := exec.Command(bin, "--tooling-transport", "native", "--models", "mock/m1", "--sessions-dir", filepath.Join(work, "sessions"),
				"--save-all", filepath.Join(work, "all"), "--resume", shared, "sys", "next question")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitConfig {
				t.Errorf("exit: %v, want %d; stderr:\n%s", err, exitConfig, stderr.String())
			}
			if !strings.Contains(stderr.String(), "originTxnId") {
				t.Errorf("stderr does not name the refused originTxnId:\n%s", stderr.String())
			}
			for p := range listTree(t, dir) {
				if !before[p] && !strings.HasPrefix(p, "home/") && p != "home" {
					t.Errorf("the run wrote %s", p)
				}
			}
		})
	}
}

// TestSessionFileThroughSymlinkStaysInside: a name in the sessions folder
// that is a link to a file outside it is not written through.
func TestSessionFileThroughSymlinkStaysInside(t *testing.T) {
	bin := aiAgentBinary(t)
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	sessions := filepath.Join(dir, "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "outside.txt")
	if err := os.WriteFile(outside, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(dir, "shared.json.gz")
	writeSessionFile(t, shared, "sess-1")
	if err := os.Symlink(outside, filepath.Join(sessions, "sess-1.json.gz")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--tooling-transport", "native", "--models", "mock/m1", "--sessions-dir", sessions, "--resume", shared, "sys", "next question")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ai-agent: %v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Fatalf("the session was written through the link: %d bytes", len(b))
	}
}

// listTree lists every path under dir, relative and slash-separated.
func listTree(t *testing.T, dir string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		seen[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seen
}
