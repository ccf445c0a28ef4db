package gitagent

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestWorktreeCommand(t *testing.T) {
	reason := "salve heal pid=42 branch=salve/heal-1"
	bad := "two\nlines"
	for _, tc := range []struct {
		name string
		cmd  contract.GitAgentCommandV1
		args string // "" when the check must refuse
		err  string
	}{
		{"list", contract.GitAgentCommandV1{Ref: WorktreeList}, "worktree list --porcelain", ""},
		{"prune", contract.GitAgentCommandV1{Ref: WorktreePrune}, "worktree prune", ""},
		{"add locked", contract.GitAgentCommandV1{Ref: WorktreeAdd, Files: []string{"/tmp/wt"}, Branch: "salve/heal-1", Message: &reason},
			"worktree add --lock --reason=" + reason + " -b salve/heal-1 -- /tmp/wt HEAD", ""},
		{"add at a commit", contract.GitAgentCommandV1{Ref: WorktreeAdd, Files: []string{"/tmp/wt"}, Branch: "b", StartPoint: "abc123"},
			"worktree add -b b -- /tmp/wt abc123", ""},
		{"remove", contract.GitAgentCommandV1{Ref: WorktreeRemove, Files: []string{"/tmp/wt"}}, "worktree remove --force --force -- /tmp/wt", ""},
		{"unknown op", contract.GitAgentCommandV1{Ref: "move"}, "", "want add, remove, list or prune"},
		{"relative path", contract.GitAgentCommandV1{Ref: WorktreeRemove, Files: []string{"wt"}}, "", "absolute, clean path"},
		{"unclean path", contract.GitAgentCommandV1{Ref: WorktreeRemove, Files: []string{"/tmp/../etc"}}, "", "absolute, clean path"},
		{"two paths", contract.GitAgentCommandV1{Ref: WorktreeAdd, Files: []string{"/a", "/b"}, Branch: "b"}, "", "exactly one"},
		{"option as branch", contract.GitAgentCommandV1{Ref: WorktreeAdd, Files: []string{"/a"}, Branch: "--force"}, "", "branch"},
		{"no branch", contract.GitAgentCommandV1{Ref: WorktreeAdd, Files: []string{"/a"}}, "", "branch"},
		{"multi-line reason", contract.GitAgentCommandV1{Ref: WorktreeAdd, Files: []string{"/a"}, Branch: "b", Message: &bad}, "", "one line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := tc.cmd
			err := worktreeSpec.check(&cmd)
			if tc.args == "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("check = %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			args, stdin := worktreeSpec.build(cmd, nil)
			if got := strings.Join(args, " "); got != tc.args || stdin != "" {
				t.Errorf("args %q, want %q", got, tc.args)
			}
		})
	}
	if actionTable[ActionGitWorktree].name != ActionGitWorktree {
		t.Error("git_worktree is not in the action table")
	}
}
