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

// testGit is git in the user's repository and, pinned, in a worktree.
type testGit interface {
	Git
	WorktreeGit
}

// gitWorktrees implements Worktrees with the git command, the git agent's
// client being an adapter the core's tests do not link; Pin returns g.
type gitWorktrees struct{ g testGit }

func runGit(dir string, args ...string) (string, error) {
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "git", Args: append([]string{"-C", dir}, args...), Env: sandbox.AllowedEnv(), Timeout: time.Minute})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return "", fmt.Errorf("git %v: exit %d: %s", args, res.ExitCode, res.Stderr)
	}
	return string(res.Stdout), nil
}

func (w gitWorktrees) Add(_ context.Context, repo, path, start, reason string) (string, error) {
	if start == "" {
		start = "HEAD"
	}
	_, err := runGit(repo, "worktree", "add", "--lock", "--reason", reason, "--detach", path, start)
	return "", err
}

func (w gitWorktrees) Remove(_ context.Context, repo, path string) error {
	_, err := runGit(repo, "worktree", "remove", "--force", "--force", path)
	return err
}

func (w gitWorktrees) RemoveKnown(ctx context.Context, repo, path, _ string) error {
	return w.Remove(ctx, repo, path)
}

func (w gitWorktrees) List(_ context.Context, repo string) ([]Worktree, error) {
	out, err := runGit(repo, "worktree", "list", "--porcelain")
	return ParseWorktreeList(out), err
}

func (w gitWorktrees) Prune(_ context.Context, repo string) error {
	_, err := runGit(repo, "worktree", "prune")
	return err
}

func (w gitWorktrees) GitDir(_ context.Context, _, path string) (string, error) {
	out, err := runGit(path, "rev-parse", "--absolute-git-dir")
	return strings.TrimSpace(out), err
}

func (w gitWorktrees) Pin(string, string) WorktreeGit { return w.g }
