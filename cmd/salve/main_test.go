package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/store"
)

func runSalve(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// openStore opens the run store at path, failing the test when it cannot;
// closing it is the caller's (some tests close it before salve reads it).
func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRootHelpAndErrors(t *testing.T) {
	code, out, _ := runSalve(t, "--help")
	if code != exitOK || !strings.Contains(out, "salve") {
		t.Errorf("--help: code %d out %q", code, out)
	}
	code, _, errOut := runSalve(t, "no-such-command")
	if code != exitBadInput || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: code %d stderr %q", code, errOut)
	}
}

func TestUnknownSubcommandFails(t *testing.T) {
	for _, args := range [][]string{{"runs", "bogus"}, {"runs"}, {"tool", "bogus"}, {"registry", "nope"}} {
		code, out, errOut := runSalve(t, args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitBadInput, errOut)
		}
		if out != "" {
			t.Errorf("%v: wrote %q to stdout; stdout is for results", args, out)
		}
	}
}

// TestVersion checks that --version prints "salve VERSION" on stdout and
// exits 0, as ai-agent and git_agent print theirs, and that salve has no
// -v shorthand the other two lack.
func TestVersion(t *testing.T) {
	code, out, errOut := runSalve(t, "--version")
	if want := "salve " + buildinfo.Version(version) + "\n"; code != exitOK || out != want || errOut != "" {
		t.Errorf("--version: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	if code, out, _ := runSalve(t, "-v"); code != exitBadInput || out != "" {
		t.Errorf("-v: exit %d, stdout %q; want exit %d and no output", code, out, exitBadInput)
	}
}
