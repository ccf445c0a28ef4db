package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
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
	// The add answers with the worktree's git directory, as "gitdir" finds
	// it from the repository's records, so heal needs no second request.
	gd := execIn(t, repo, request(ActionGitWorktree, `{"ref":"gitdir","files":[`+quote(wt)+`]}`))
	wantSuccess(t, gd)
	if got, want := res.Metadata[MetaGitDir], strings.TrimSpace(gd.Data); got != want || want == "" {
		t.Errorf("add's metadata %s = %v, gitdir says %q", MetaGitDir, got, want)
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

// TestWorktreeReuseOps drives the operations a reused worktree goes
// through: gitdir (from the repository's records, whatever the .git file
// says), reset, clean, untracked, gitlinks and detach.
func TestWorktreeReuseOps(t *testing.T) {
	repo := newRepo(t)
	head := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	git(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+head+",vendor/sub")
	git(t, repo, "commit", "-qm", "a submodule entry")
	head = strings.TrimSpace(git(t, repo, "rev-parse", "HEAD"))
	wt := filepath.Join(t.TempDir(), "heal-0")
	wantSuccess(t, execIn(t, repo, request(ActionGitWorktree, `{"ref":"add","files":[`+quote(wt)+`]}`)))
	gd := strings.TrimSpace(git(t, wt, "rev-parse", "--absolute-git-dir"))
	writeFile(t, wt, ".git", "gitdir: /somewhere/else\n")
	res := execIn(t, repo, request(ActionGitWorktree, `{"ref":"gitdir","files":[`+quote(wt)+`]}`))
	wantSuccess(t, res)
	if strings.TrimSpace(res.Data) != gd {
		t.Errorf("gitdir %q, want %q", res.Data, gd)
	}
	writeFile(t, wt, ".git", "gitdir: "+gd+"\n")
	writeFile(t, wt, "a.txt", "changed\n")
	writeFile(t, wt, "left/over.o", "x")
	pinned := func(payload string) contract.ActionResult {
		req, rerr := Decode([]byte(request(ActionGitWorktree, payload)))
		if rerr != nil {
			t.Fatal(rerr)
		}
		return (&Runner{Pin: &Pin{GitDir: gd, WorkTree: wt}}).Execute(context.Background(), req)
	}
	res = pinned(`{"ref":"untracked"}`)
	wantSuccess(t, res)
	if res.Data != "left/\x00" {
		t.Errorf("untracked %q", res.Data)
	}
	wantSuccess(t, pinned(`{"ref":"reset","start_point":"`+head+`"}`))
	wantSuccess(t, pinned(`{"ref":"clean"}`))
	if res = pinned(`{"ref":"untracked"}`); res.Data != "" {
		t.Errorf("untracked after clean %q", res.Data)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "a.txt")); string(b) == "changed\n" {
		t.Error("reset kept the changed file")
	}
	if res = pinned(`{"ref":"gitlinks"}`); res.Data != "vendor/sub\x00" {
		t.Errorf("gitlinks %q", res.Data)
	}
	wantSuccess(t, pinned(`{"ref":"detach","start_point":"`+head+`"}`))
}
