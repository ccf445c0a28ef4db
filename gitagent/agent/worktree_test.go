package agent

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWorktree adds a locked worktree on a new branch, lists it, removes it
// although locked, and prunes, through the git_worktree extension.
func TestWorktree(t *testing.T) {
	repo := newRepo(t)
	wt := filepath.Join(t.TempDir(), "heal-wt")

	res := execIn(t, repo, request(ActionGitWorktree, canonical(ActionGitWorktree,
		`{"ref":"add","files":[`+quote(wt)+`],"branch":"salve/heal-1","message":"salve heal run 1"}`)))
	wantSuccess(t, res)
	if b := git(t, wt, "branch", "--show-current"); b != "salve/heal-1\n" {
		t.Errorf("worktree branch %q", b)
	}

	res = execIn(t, repo, request(ActionGitWorktree, `{"ref":"list"}`))
	wantSuccess(t, res)
	if !strings.Contains(res.Data, "worktree "+wt+"\n") || !strings.Contains(res.Data, "locked salve heal run 1") {
		t.Errorf("list %q lacks the locked worktree", res.Data)
	}

	wantSuccess(t, execIn(t, repo, request(ActionGitWorktree, `{"ref":"remove","files":[`+quote(wt)+`]}`)))
	wantSuccess(t, execIn(t, repo, request(ActionGitWorktree, `{"ref":"prune"}`)))
	if out := git(t, repo, "worktree", "list", "--porcelain"); strings.Contains(out, wt) {
		t.Errorf("worktree still listed after remove: %q", out)
	}
}

func TestWorktreeRefuses(t *testing.T) {
	for name, payload := range map[string]string{
		"unknown op":          `{"ref":"move"}`,
		"no path":             `{"ref":"add","branch":"b"}`,
		"relative path":       `{"ref":"add","files":["wt"],"branch":"b"}`,
		"unclean path":        `{"ref":"remove","files":["/tmp/a/../b"]}`,
		"two paths":           `{"ref":"remove","files":["/tmp/a","/tmp/b"]}`,
		"branch option":       `{"ref":"add","files":["/tmp/wt"],"branch":"-f"}`,
		"start point option":  `{"ref":"add","files":["/tmp/wt"],"branch":"b","start_point":"--detach"}`,
		"multi-line lock msg": `{"ref":"add","files":["/tmp/wt"],"branch":"b","message":"a\nb"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if req, rerr := Decode([]byte(request(ActionGitWorktree, payload))); rerr == nil || rerr.Kind != KindInvalidRequest {
				t.Errorf("Decode = %+v, %v; want invalid_request", req, rerr)
			}
		})
	}
}
