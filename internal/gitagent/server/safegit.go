package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/salve-dev/salve/contract"
)

// Pin fixes the git directory and the work tree of every git command the
// agent runs, so that git never discovers them from the work tree: a `.git`
// file rewritten by a build (pointing at a git directory with hooks of its
// own) is then never read. salve heal pins each of its worktrees to the git
// directory it recorded when it created the worktree.
type Pin struct {
	// GitDir is the git directory (GIT_DIR), absolute.
	GitDir string
	// WorkTree is the work tree (GIT_WORK_TREE), absolute.
	WorkTree string
}

// Check verifies that both paths are absolute and clean and name existing
// directories that are not symbolic links.
func (p Pin) Check() error {
	for _, f := range []struct{ name, path string }{{"--git-dir", p.GitDir}, {"--work-tree", p.WorkTree}} {
		if f.path == "" {
			return errors.New("--git-dir and --work-tree go together")
		}
		if !filepath.IsAbs(f.path) || filepath.Clean(f.path) != f.path {
			return fmt.Errorf("%s: want an absolute, clean path, got %q", f.name, f.path)
		}
		st, err := os.Lstat(f.path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("%s: %s is not a directory (symbolic links are refused)", f.name, f.path)
		}
	}
	return nil
}

// hardenedConfig is given to every git command as "-c key=value", over
// every configuration file. These settings run programs that a heal never
// needs, and some of them resolve relative to the work tree (a repository
// that sets core.hooksPath=.husky would run the work tree's scripts):
//
//   - hooks (core.hooksPath) and the file system monitor (core.fsmonitor);
//   - the pager and the editors (never wanted by a non-interactive agent);
//   - automatic gc and maintenance, which detach background processes that
//     would outlive the agent;
//   - submodule recursion, which runs git in other repositories;
//   - looking into a submodule's work tree: to tell whether a submodule is
//     "dirty", git runs a status in it, which reads the submodule's own
//     configuration (its .git/modules/<name>/config, or the git directory
//     its .git file names) and so runs the clean filter or fsmonitor a
//     build or a planted repository set there. See submoduleIgnore.
//
// Filter drivers (filter.*) and diff drivers stay as configured: only the
// user's own configuration can define them (the git directory is pinned,
// so no work tree can supply another), and turning off a clean filter such
// as Git LFS's would commit the file itself instead of its pointer. git_diff
// passes --no-ext-diff and --no-textconv.
var hardenedConfig = []string{
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"core.pager=cat",
	"core.editor=false",
	"sequence.editor=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	"push.recurseSubmodules=no",
	"diff.ignoreSubmodules=" + submoduleIgnore,
	"diff.submodule=short",
	"status.submoduleSummary=false",
	"protocol.allow=never",
	// A file is unchanged only when all its stat data is: a build cannot
	// keep a changed tracked file through a reused worktree's reset by
	// restoring its size and mtime.
	"core.trustctime=true",
	"core.checkStat=default",
}

// submoduleIgnore is the --ignore-submodules mode of every status and diff
// the agent runs (git_status and git_diff pass it on the command line too,
// since a .gitmodules entry "ignore = none" overrides the configuration):
// changes to the commit a submodule is recorded at still show, but git
// never looks inside the submodule's work tree, so it never starts a git
// command there. git_branch switches with --quiet, which skips the report
// of local changes (a diff over the submodules).
const submoduleIgnore = "dirty"

// offlineConfig is added for every action but git_push: no transport at
// all (protocol.allow=never above) and no credential program.
var offlineConfig = []string{
	"credential.helper=",
	"core.askPass=",
}

// pushProtocols are the transports git_push may use, on top of
// protocol.allow=never: remote helpers (fd::, ext::, transport::…),
// plain http and everything else are refused by git before it starts a
// program. GIT_PROTOCOL_FROM_USER=0 in the environment keeps it so.
var pushProtocols = []string{
	"protocol.https.allow=always",
	"protocol.ssh.allow=always",
	"protocol.git.allow=always",
	"protocol.file.allow=always",
}

// configArgs returns the "-c" arguments for action.
func configArgs(action string) []string {
	extra := offlineConfig
	if action == contract.ActionGitPush {
		extra = pushProtocols
	}
	args := make([]string, 0, 2*(len(hardenedConfig)+len(extra)))
	for _, kv := range append(append([]string{}, hardenedConfig...), extra...) {
		args = append(args, "-c", kv)
	}
	return args
}

// hardenedEnv is set in git's environment for every command, over what the
// caller passed: no prompt, no pager, no editor, no optional locks (git
// status does not rewrite the index), and no protocol from a URL the user
// typed that the allow-list does not name.
var hardenedEnv = map[string]string{
	"GIT_TERMINAL_PROMPT":    "0",
	"GIT_PROTOCOL_FROM_USER": "0",
	"GIT_PAGER":              "cat",
	"GIT_EDITOR":             "false",
	"GIT_SEQUENCE_EDITOR":    "false",
	"GIT_OPTIONAL_LOCKS":     "0",
}
