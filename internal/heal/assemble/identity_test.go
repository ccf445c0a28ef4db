package assemble

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/gitagent/gittest"
	"github.com/salve-dev/salve/internal/heal/results"
)

// TestNewRepoIdentity: the build-cache layer's name, looked up beside the
// repository's rules, is the remote's URL when there is one; else the root
// commit of HEAD, or of the base the rules were read from when they name
// one (a change under heal that rewrites its history does not choose its
// layer).
func TestNewRepoIdentity(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}
	gitCmd := func(dir string, args ...string) string {
		t.Helper()
		return strings.TrimSpace(gittest.Git(t, env, dir, args...))
	}
	repo := func() (dir, root string) {
		dir = t.TempDir()
		gitCmd(dir, "init", "-q", "-b", "main")
		gitCmd(dir, "commit", "-q", "--allow-empty", "-m", "root")
		root = gitCmd(dir, "rev-parse", "HEAD")
		gitCmd(dir, "commit", "-q", "--allow-empty", "-m", "next")
		return dir, root
	}
	plain, plainRoot := repo()
	cloned, _ := repo()
	gitCmd(cloned, "remote", "add", "origin", "https://example.com/acme/app.git")
	rewritten, _ := repo()
	gitCmd(rewritten, "checkout", "-q", "--orphan", "base")
	gitCmd(rewritten, "commit", "-q", "--allow-empty", "-m", "another root")
	baseRoot := gitCmd(rewritten, "rev-parse", "HEAD")
	gitCmd(rewritten, "checkout", "-q", "main")
	for _, tc := range []struct {
		name, dir string
		base      string
		want      string
	}{
		{"a remote", cloned, "", "https://example.com/acme/app"},
		{"no remote", plain, "", "root:" + plainRoot},
		{"no remote, a base", rewritten, "base", "root:" + baseRoot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Workspace: tc.dir, NoStore: true, Rules: RulesNone, GitAgent: "/bin/true", Getenv: func(string) string { return "" }}
			if tc.base != "" {
				c.RepoConfig = &results.RepoConfig{Rev: gitCmd(tc.dir, "rev-parse", tc.base)}
			}
			p, err := New(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.identity != tc.want {
				t.Errorf("identity %q, want %q", p.identity, tc.want)
			}
		})
	}
}
