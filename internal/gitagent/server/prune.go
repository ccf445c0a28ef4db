package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// ActionGitBranchPrune deletes stale branches of one family (salve's
// documented v1 extension, used by salve gc): every branch whose name
// starts with the prefix in `branch` and that git branch -d agrees to
// delete, that is, merged into HEAD (or its upstream) and checked out in no
// worktree. A branch that holds a commit found nowhere else is never
// deleted. The result lists the deleted branches, one per line.
const ActionGitBranchPrune = "git_branch_prune"

var branchPruneSpec = actionSpec{
	name:   ActionGitBranchPrune,
	doc:    "delete the branches named `branch`* that are merged into HEAD (git branch -d); lists the deleted ones",
	fields: []string{"branch"},
	check:  checkPrunePrefix,
	build: func(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
		return []string{"for-each-ref", "--format=%(refname:short)", "refs/heads/" + cmd.Branch + "*"}, ""
	},
}

// checkPrunePrefix accepts a branch name prefix such as "salve/heal-".
func checkPrunePrefix(cmd *contract.GitAgentCommandV1) error {
	if cmd.Branch == "" {
		return errors.New("branch: the prefix of the branches to prune is required")
	}
	if err := checkRefName(strings.TrimSuffix(cmd.Branch, "/") + "x"); err != nil {
		return fmt.Errorf("branch: %w", err)
	}
	return nil
}

// pruneBranches lists the branches of the prefix and deletes each that
// git branch -d accepts; refusals (not merged, checked out) keep it.
func (a *Runner) pruneBranches(ctx context.Context, dir string, cmd contract.GitAgentCommandV1) contract.ActionResult {
	args, _ := branchPruneSpec.build(cmd, nil)
	res := a.result(a.git(ctx, ActionGitBranchPrune, dir, false, args, ""))
	if res.OutputType != contract.OutputText {
		return res
	}
	var deleted strings.Builder
	for _, name := range strings.Split(strings.TrimSpace(res.Data), "\n") {
		if name == "" || !strings.HasPrefix(name, cmd.Branch) {
			continue
		}
		del := a.result(a.git(ctx, ActionGitBranchPrune, dir, false, []string{"branch", "-d", "--end-of-options", name}, ""))
		if del.OutputType == contract.OutputText {
			deleted.WriteString(name + "\n")
		}
	}
	return textResult(deleted.String(), nil)
}
