package heal

import (
	"context"
	"fmt"
	"github.com/salve-dev/salve/internal/testdirs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// gitAgentBin and salveBin are the binaries built for the tests.
var gitAgentBin, salveBin string

func TestMain(m *testing.M) {
	// A fuzz worker runs only a fuzz target, and is restarted often: it
	// needs no binaries, and building them made every worker start take
	// seconds, so the fuzzer reported no executions at all.
	if slices.ContainsFunc(os.Args[1:], func(a string) bool { return strings.HasPrefix(a, "-test.fuzzworker") }) {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "heal-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		defer testdirs.Isolate()()
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
