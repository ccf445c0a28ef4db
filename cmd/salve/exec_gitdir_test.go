package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

// execGitCheckout makes a real git checkout with one commit.
func execGitCheckout(t *testing.T, gitEnv []string) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "main.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "main.txt"}, {"commit", "-qm", "init"}} {
		gitIn(t, ws, gitEnv, args...)
	}
	return ws
}

func gitIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestExecCannotPlantGitPrograms runs, through the real salve binary, a
// build that plants a pre-commit hook and core.fsmonitor in the checkout
// (directly, then in a .git it swaps in for the real one). After it, the
// user's own git status and git commit in the checkout must run no
// planted program: under bwrap the writes fail inside the sandbox; with
// no sandbox salve puts the git metadata back and warns.
func TestExecCannotPlantGitPrograms(t *testing.T) {
	needTools(t, "git")
	salve, _ := mcpBinaries(t)
	for _, iso := range []string{sandbox.IsolationBwrap, sandbox.IsolationNone} {
		t.Run(iso, func(t *testing.T) {
			if iso == sandbox.IsolationBwrap {
				if err := (sandbox.Bwrap{}).Probe(context.Background(), ""); err != nil {
					t.Skipf("bwrap cannot run here (scripts/setup.sh installs bubblewrap): %v", err)
				}
			}
			home := t.TempDir()
			gitEnv := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
				"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
				"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
			ws := execGitCheckout(t, gitEnv)
			marker := filepath.Join(t.TempDir(), "pwned")
			build := `printf '#!/bin/sh\ntouch ` + marker + `\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
printf '[core]\n\tfsmonitor = touch ` + marker + `\n' >> .git/config
printf '#!/bin/sh\ntouch ` + marker + `\n' > .git/hooks/post-index-change; chmod +x .git/hooks/post-index-change
mv .git .git-real && cp -r .git-real .git && printf '[core]\n\tfsmonitor = touch ` + marker + `\n' >> .git/config
echo the-build-ran`
			cmd := exec.Command(salve, "exec", "--workspace", ws, "--isolation", iso, "--no-record",
				"--run-dir", filepath.Join(t.TempDir(), "run"), "--timeout", "60", "--cmd", build)
			cmd.Env = append(os.Environ(), "HOME="+home)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("salve exec: %v\n%s\n%s", err, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), "the-build-ran") || !strings.Contains(stderr.String(), iso+" isolation") {
				t.Fatalf("the build did not run under %s:\n%s\n%s", iso, stdout.String(), stderr.String())
			}
			warned := strings.Contains(stderr.String(), "the build changed git metadata")
			if iso == sandbox.IsolationNone && !warned {
				t.Errorf("no warning for the git metadata put back:\n%s", stderr.String())
			}
			if iso == sandbox.IsolationBwrap && warned {
				t.Errorf("a sandboxed build changed the git metadata:\n%s", stderr.String())
			}
			// The user's next git commands.
			if err := os.WriteFile(filepath.Join(ws, "main.txt"), []byte("changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitIn(t, ws, gitEnv, "status")
			gitIn(t, ws, gitEnv, "add", "main.txt")
			gitIn(t, ws, gitEnv, "commit", "-qm", "next")
			if _, err := os.Lstat(marker); err == nil {
				t.Fatalf("a program planted by the build ran at the user's git status/commit\n%s", stderr.String())
			}
		})
	}
}
