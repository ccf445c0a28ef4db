package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
)

// gitRepo makes a real git checkout with one commit, or skips without git.
func gitRepo(t *testing.T) string {
	t.Helper()
	if !lookPath("git") {
		t.Skip("git is not installed here")
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "main.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "main.txt"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return ws
}

// plantScript is a hostile build: it plants a pre-commit hook and
// core.fsmonitor that would touch marker on the host at the next git
// command, then moves .git aside and writes a new one with the same trap.
func plantScript(marker string) string {
	return `printf '#!/bin/sh\ntouch ` + marker + `\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
git config core.fsmonitor 'touch ` + marker + `' || printf '[core]\n\tfsmonitor = touch ` + marker + `\n' >> .git/config
echo 'foo filter=evil' > .git/info/attributes
mv .git .git-moved && mkdir .git && cp -r .git-moved/* .git/
echo built; exit 0`
}

// TestExecGuardsGitMetadata runs the hostile build under every working
// backend: a sandbox leaves the git metadata untouched (the writes fail
// inside), and without one salve puts every change back and warns.
// Either way a real git status and commit afterwards run no planted
// program.
func TestExecGuardsGitMetadata(t *testing.T) {
	for _, iso := range isolations(t) {
		t.Run(iso, func(t *testing.T) {
			ws := gitRepo(t)
			marker := filepath.Join(t.TempDir(), "pwned")
			config, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))
			ex := newExec(t, iso, executor.Options{SkipProbe: true})
			out, err := ex.Run(context.Background(), contract.ExecutorInput{
				WorkspacePath: ws, ResolvedBuildCommand: plantScript(marker), TimeoutSeconds: 60})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.BuildLog, "built") {
				t.Fatalf("the build did not run:\n%s", out.BuildLog)
			}
			warn := strings.Join(out.EnvironmentMetadata.Warnings, "\n")
			if iso == "none" && !strings.Contains(warn, ".git") {
				t.Errorf("no warning for the changed git metadata: %q", warn)
			}
			if iso != "none" && warn != "" {
				t.Errorf("a sandboxed build changed the git metadata: %s", warn)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(got) != string(config) {
				t.Errorf(".git/config = %q, want %q", got, config)
			}
			for _, p := range []string{".git/hooks/pre-commit", ".git/info/attributes"} {
				if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
					t.Errorf("%s planted by the build is still there", p)
				}
			}
			gitRuns(t, ws, marker)
		})
	}
}

// gitRuns runs git status and git commit in ws, as the user would next,
// and fails when marker appears.
func gitRuns(t *testing.T, ws, marker string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, "main.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"status"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "next"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Error("a program planted by the build ran at the user's next git command")
	}
}

// TestExecLogFileCapped runs a build that prints far more than a small
// cap: build.log keeps the head and the tail with a marker between, and
// the output says how much the file left out.
func TestExecLogFileCapped(t *testing.T) {
	const max = 4096
	ex := newExec(t, "none", executor.Options{SkipProbe: true, MaxLogFile: max})
	script := `i=0; while [ $i -lt 5000 ]; do echo "line $i of the build"; i=$((i+1)); done; echo LAST`
	out, err := ex.Run(context.Background(), contract.ExecutorInput{
		WorkspacePath: t.TempDir(), ResolvedBuildCommand: script, TimeoutSeconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	m := out.EnvironmentMetadata
	data, err := os.ReadFile(m.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if m.LogBytes < 90000 || m.LogDroppedBytes != m.LogBytes-max {
		t.Errorf("log_bytes %d, log_dropped_bytes %d", m.LogBytes, m.LogDroppedBytes)
	}
	if len(data) > max+200 {
		t.Errorf("build.log holds %d bytes, cap %d", len(data), max)
	}
	s := string(data)
	if !strings.HasPrefix(s, "line 0 of the build\n") || !strings.HasSuffix(s, "line 4999 of the build\nLAST\n") ||
		!strings.Contains(s, "bytes of output dropped here") {
		t.Errorf("build.log lacks its head, its tail or the marker:\n%s", s)
	}
	var written contract.ExecutorOutput
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(m.LogPath), executor.OutputFile))
	if err != nil || json.Unmarshal(raw, &written) != nil || written.EnvironmentMetadata.LogDroppedBytes != m.LogDroppedBytes {
		t.Errorf("output.json lacks log_dropped_bytes: %v\n%s", err, raw)
	}
}
