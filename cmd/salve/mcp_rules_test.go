package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/testrepo"
)

// TestMCPHealHonoursBaseRules: an MCP heal of a feature branch runs under
// the .salve.yml of the remote's default branch, whatever the branch
// itself says: the fix to the protected main.go is refused by rule
// protected-path, the other file is fixed.
func TestMCPHealHonoursBaseRules(t *testing.T) {
	needTools(t, "go", "git", "sh", "gofmt")
	salve, gitAgent := mcpBinaries(t)
	repo := testrepo.Example(t, "go-broken")
	if err := os.WriteFile(filepath.Join(repo, ".salve.yml"), []byte("protected_paths: [main.go]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", ".salve.yml")
	git(t, repo, "commit", "-qm", "protect main.go")
	origin := filepath.Join(t.TempDir(), "origin.git")
	git(t, repo, "clone", "-q", "--bare", repo, origin)
	git(t, repo, "remote", "add", "origin", origin)
	git(t, repo, "fetch", "-q", "origin")
	git(t, repo, "remote", "set-head", "origin", "main")
	git(t, repo, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(repo, ".salve.yml"), []byte("protected_paths: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "commit", "-qam", "lift the protection")

	cmd := exec.Command(salve, "mcp", "--isolation", "none")
	cmd.Env = mcpEnv(t, gitAgent)
	c, _ := progressClient()
	ctx := testContext(t)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{
		"workspace": repo, "cmd": "sh check.sh", "fixers": []string{"rules"}, "max_iterations": 2}})
	if err != nil {
		t.Fatal(err)
	}
	var out results.Results
	decodeStructured(t, res, &out)
	if out.RepoConfig == nil || !strings.Contains(strings.Join(out.RepoConfig.Applied, ";"), "protected_paths: main.go") {
		t.Fatalf("repo_config %+v: the base's file was not applied: %s", out.RepoConfig, toolText(res))
	}
	refused, fixedSum := false, false
	for _, b := range out.Bugs {
		for _, a := range b.Attempts {
			refused = refused || b.Bug.FilePath == "main.go" && strings.Contains(a.Reason, integrity.RuleProtectedPath)
		}
		fixedSum = fixedSum || b.Bug.FilePath == "sum.go" && b.Status == results.StatusFixed
		if b.Bug.FilePath == "main.go" && b.Status == results.StatusFixed {
			t.Errorf("the protected main.go was fixed: %+v", b)
		}
	}
	if !refused || !fixedSum || out.Outcome == results.OutcomeGreen {
		t.Errorf("outcome %s: main.go refused: %v, sum.go fixed: %v\n%s", out.Outcome, refused, fixedSum, toolText(res))
	}
}
