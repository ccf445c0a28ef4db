package assemble

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewStartsSetupReadsBesideRules: the heal's first reads of the
// repository (its worktrees, uncommitted changes, the heal branch) start
// beside the read of its rules, and the run is handed them. The git agent
// here answers the rules' requests only once the worktrees were listed:
// read one after the other, the rules' read would give up waiting first.
func TestNewStartsSetupReadsBesideRules(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	listed, log := filepath.Join(dir, "listed"), filepath.Join(dir, "log")
	// One request on stdin, one response on stdout; the rules' requests
	// (the base's search, the file at HEAD) wait for the listing, up to
	// ten seconds, and say in the log whether it came.
	agent := filepath.Join(dir, "git_agent")
	script := `#!/bin/sh
in=$(cat)
id=$(printf '%s' "$in" | sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p')
case "$in" in
*'"action":"git_worktree"'*'"ref":"list"'*|*'"ref":"list"'*'"action":"git_worktree"'*)
	: > '` + listed + `'
	echo list >> '` + log + `' ;;
*'"action":"git_rev_parse"'*'refs/heads/'*|*'"action":"git_diff"'*)
	echo other >> '` + log + `' ;;
*)
	i=0
	while [ ! -e '` + listed + `' ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done
	if [ -e '` + listed + `' ]; then echo rules-after-list >> '` + log + `'; else echo rules-waited-in-vain >> '` + log + `'; fi ;;
esac
printf '{"request_id":"%s","api_version":null,"status":"error","code":1,"result":{"output_type":"error","data":"fatal: no\\n","metadata":{"error_kind":"git_failed","exit_code":128}},"error":null,"plan_id":null,"task_id":null,"correlation_id":null}\n' "$id"
`
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := Config{Workspace: repo, NoStore: true, GitAgent: agent, Branch: "salve/heal-reads", Getenv: func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}}
	p, err := New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Options().Reads == nil {
		t.Fatal("the run is handed no reads")
	}
	p.Options().Reads.Wait()
	b, _ := os.ReadFile(log)
	got := string(b)
	lists := 0
	for _, l := range strings.Split(got, "\n") {
		if l == "list" {
			lists++
		}
	}
	if !strings.Contains(got, "rules-after-list") || strings.Contains(got, "rules-waited-in-vain") || lists != 1 {
		t.Errorf("the agent's requests:\n%s", got)
	}
}
