package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHealWithoutGitIdentity runs salve heal on a machine where git knows
// no identity (no configuration, no GIT_AUTHOR_* or GIT_COMMITTER_*, as on
// a fresh CI runner): the fix is committed as salve[bot] with a noreply
// address, and the heal is green.
func TestHealWithoutGitIdentity(t *testing.T) {
	needTools(t, "go", "git")
	salve, gitAgent := mcpBinaries(t)
	home := t.TempDir()
	repo := filepath.Join(t.TempDir(), "kv")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/kv\n\ngo 1.22\n",
		"kv.go":  "// Package kv formats keys.\npackage kv\n\n// Key formats a key.\nfunc Key(name string, n int) string {\n\treturn strings.ToUpper(name) + \"-\" + fmt.Sprint(n)\n}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The test's own commit carries an identity on the command line only.
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "kv"}} {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = noIdentityEnv(home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	cmd := exec.Command(salve, "heal", "--workspace", repo, "--cmd", "go build ./...", "--isolation", "none", "--no-store", "--git-agent", gitAgent)
	cmd.Env = append(noIdentityEnv(home), "XDG_STATE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("heal: %v\n%s", err, out)
	}
	log := exec.Command("git", "-C", repo, "log", "--format=%an <%ae>|%cn <%ce>", "main..salve/heal-"+healBranchSuffix(t, string(out)))
	log.Env = noIdentityEnv(home)
	b, err := log.Output()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, out)
	}
	const bot = "salve[bot] <salve[bot]@users.noreply.github.com>"
	if strings.TrimSpace(string(b)) == "" {
		t.Fatalf("no heal commit:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != bot+"|"+bot {
			t.Errorf("commit by %q, want %s as author and committer", l, bot)
		}
	}
}

// noIdentityEnv is the environment of a machine where git knows no
// identity: an empty home, no system configuration, no identity variables.
func noIdentityEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "HOME" || k == "XDG_CONFIG_HOME" || k == "EMAIL" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
}

// healBranchSuffix reads the heal branch's suffix from salve heal's
// summary line ("branch salve/heal-XXXXXXXX").
func healBranchSuffix(t *testing.T, out string) string {
	t.Helper()
	_, after, ok := strings.Cut(out, "branch salve/heal-")
	if !ok {
		t.Fatalf("no heal branch in the output:\n%s", out)
	}
	return strings.TrimRight(strings.Fields(after)[0], ",;")
}
