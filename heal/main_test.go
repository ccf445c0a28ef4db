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

// gitAgentBin and salveBin are the binaries built for the tests.
var gitAgentBin, salveBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heal-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		var err error
		if gitAgentBin, err = buildBinary(context.Background(), dir, "git_agent"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if salveBin, err = buildBinary(context.Background(), dir, "salve"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// buildBinary builds cmd/name into dir and returns its path.
func buildBinary(ctx context.Context, dir, name string) (string, error) {
	bin := filepath.Join(dir, name)
	env := sandbox.MergeEnv(sandbox.AllowedEnv(), map[string]string{"CGO_ENABLED": "0"})
	res, err := sandbox.Run(ctx, sandbox.Cmd{Path: "go", Args: []string{"build", "-o", bin, "github.com/salve-dev/salve/cmd/" + name}, Env: env, Timeout: 10 * time.Minute})
	if err != nil {
		return "", fmt.Errorf("build %s: %w", name, err)
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("build %s: exit %d: %s", name, res.ExitCode, res.Stderr)
	}
	return bin, nil
}

func agentWorktrees() AgentWorktrees { return AgentWorktrees{Git: AgentGit{Bin: gitAgentBin}} }
