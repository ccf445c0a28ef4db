package server

import "github.com/salve-dev/salve/contract"

// ActionGitCommitDiff shows the change one commit made: the unified diff of
// `ref` against its first parent (salve's documented v1 extension, used by
// salve heal's history tier to read the commit that broke the build). A
// root commit, with no parent, is an error.
const ActionGitCommitDiff = "git_commit_diff"

var commitDiffSpec = actionSpec{
	name:   ActionGitCommitDiff,
	doc:    "the unified diff of `ref` (default HEAD) against its first parent",
	fields: []string{"ref"},
	check:  checkRevParse,
	build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
		// diff-tree, not diff: outside a repository git diff compares
		// files on disk, while diff-tree only ever reads commits.
		return []string{"diff-tree", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=" + submoduleIgnore,
			"--submodule=short", "-U3", "--end-of-options", cmd.Ref + "^1", cmd.Ref}, ""
	},
}
