package heal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/salve-dev/salve/sandbox"
)

// gitAgentBin is the git_agent binary built for the tests.
var gitAgentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heal-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		bin, err := BuildGitAgent(context.Background(), dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		gitAgentBin = bin
		return m.Run()
	}()
	os.Exit(code)
}

// BuildGitAgent builds cmd/git_agent into dir and returns its path.
func BuildGitAgent(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "git_agent")
	env := sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"CGO_ENABLED": "0"})
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: "go", Args: []string{"build", "-o", bin, "github.com/salve-dev/salve/cmd/git_agent"}, Env: env, Timeout: 5 * time.Minute})
	if err != nil {
		return "", fmt.Errorf("build git_agent: %w", err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("build git_agent: exit %d: %s", res.ExitCode, res.Stderr)
	}
	return bin, nil
}

func agentWorktrees() AgentWorktrees { return AgentWorktrees{Git: AgentGit{Bin: gitAgentBin}} }
