package executor

import (
	"fmt"
	"os"

	"github.com/salve-dev/salve/internal/gitguard"
	"github.com/salve-dev/salve/internal/sandbox"
)

// maxGitWarnings bounds the warnings one build's git changes add.
const maxGitWarnings = 20

// gitWatch guards the workspace's git metadata across one build, so that
// the build leaves nothing there that runs a program at the user's next
// git command (docs/executor.md, "The checkout's git metadata"). A nil
// gitWatch watches nothing.
type gitWatch struct {
	guard  *gitguard.Guard
	before *gitguard.Snapshot
}

// watchGit snapshots the git metadata of workspace ws before a build run
// by backend b. Without a sandbox it guards everything in the git
// directories that can run a program, and the user's global git config;
// a sandbox mounts the git metadata read-only, so there it watches the
// .git entries only (one the build creates where none was is removed),
// and leaves the user's own changes inside the git directories alone. A
// guard that cannot be set up returns a warning instead.
func watchGit(ws string, b sandbox.Backend) (*gitWatch, string) {
	o := gitguard.Options{EntriesOnly: b.Name() != sandbox.IsolationNone}
	if !o.EntriesOnly {
		o.Extra = globalGitConfig()
	}
	g, err := gitguard.New(ws, o)
	if err == nil {
		var before *gitguard.Snapshot
		if before, err = g.Take(); err == nil {
			return &gitWatch{guard: g, before: before}, ""
		}
	}
	return nil, fmt.Sprintf("the git metadata of %s is not guarded during this build: %v", ws, err)
}

// restore puts back what the build changed and returns one warning per
// change.
func (w *gitWatch) restore() []string {
	if w == nil {
		return nil
	}
	changes := w.guard.Restore(w.before)
	var out []string
	for i, c := range changes {
		if i == maxGitWarnings {
			out = append(out, fmt.Sprintf("and %d more changes to git metadata", len(changes)-i))
			break
		}
		out = append(out, "the build changed git metadata: "+c.String())
	}
	return out
}

// globalGitConfig names the git config files outside the repository that
// git reads on the host (gitguard.GlobalConfig): the user's and the
// system's.
func globalGitConfig() []string {
	home, _ := os.UserHomeDir()
	return gitguard.GlobalConfig(home, os.Getenv("XDG_CONFIG_HOME"))
}
