package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent/server"
)

// hookScript writes a hook that appends to marker when run.
func hookScript(t *testing.T, dir, name, marker string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("#!/bin/sh\necho \"$0\" >> %q\nexit 0\n", marker)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRemoteHelpersRefused pushes to remotes a user never means: remote
// helpers given as URLs or configured on a remote, plain http and a
// helper-only scheme. Every one is answered at once with an error
// response, and no helper program runs (issue 11, finding 7).
func TestRemoteHelpersRefused(t *testing.T) {
	repo := newRepo(t)
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	// A remote helper on PATH that would record being run.
	hookScript(t, bin, "git-remote-transport", marker)
	hookScript(t, bin, "git-remote-evil", marker)
	git(t, "-C", repo, "remote", "add", "fd", "fd::3")
	git(t, "-C", repo, "remote", "add", "helper", "transport::x")
	git(t, "-C", repo, "remote", "add", "evil", "evil://host/x")
	git(t, "-C", repo, "remote", "add", "plain", "http://127.0.0.1:1/x.git")
	env := append(gitEnvWithPath(bin), "GIT_PROTOCOL_FROM_USER=1")
	for _, tc := range []struct{ remote, kind string }{
		{"fd::3", server.KindInvalidRequest},
		{"transport::x", server.KindInvalidRequest},
		{"ext::sh -c touch% " + marker, server.KindInvalidRequest},
		{"evil://host/x", server.KindInvalidRequest},
		{"http://127.0.0.1:1/x.git", server.KindInvalidRequest},
		{"fd", server.KindGitFailed},
		{"helper", server.KindGitFailed},
		{"evil", server.KindGitFailed},
		{"plain", server.KindGitFailed},
	} {
		t.Run(tc.remote, func(t *testing.T) {
			payload := fmt.Sprintf(`{"command":{"type":"git_push","remote":%q,"branch":"main"}}`, tc.remote)
			// "At once" needs no clock: a push that waited on the network
			// or on a helper would run into --timeout and answer the
			// timeout kind, which the kind check refuses.
			r := runAgent(t, "", env, strings.NewReader(request("git_push", payload)), "-C", repo, "--no-register", "--timeout", "60s")
			if r.code != 0 || r.resp.Status != contract.StatusError {
				t.Fatalf("exit %d, response %s", r.code, r.stdout)
			}
			if k := r.resp.Result.Metadata["error_kind"]; k != tc.kind {
				t.Errorf("error_kind %v, want %s: %s", k, tc.kind, r.resp.Result.Data)
			}
		})
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a remote helper ran: %s", b)
	}
}

// gitEnvWithPath is the client environment with dir first in PATH.
func gitEnvWithPath(dir string) []string {
	var env []string
	for _, kv := range server.GitEnv() {
		if strings.HasPrefix(kv, "PATH=") {
			kv = "PATH=" + dir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
		env = append(env, kv)
	}
	return env
}

// TestPushAllowedTransports pushes over the transports a user means: a
// local path, a file URL and a configured remote; all succeed.
func TestPushAllowedTransports(t *testing.T) {
	repo := newRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	git(t, "init", "-q", "--bare", remote)
	git(t, "-C", repo, "remote", "add", "origin", remote)
	for _, rem := range []string{remote, "file://" + remote, "origin"} {
		payload := fmt.Sprintf(`{"command":{"type":"git_push","remote":%q,"branch":"main"}}`, rem)
		r := runAgent(t, "", nil, strings.NewReader(request("git_push", payload)), "-C", repo, "--no-register")
		if r.code != 0 || r.resp.Status != contract.StatusSuccess {
			t.Errorf("push to %s: %s", rem, r.stdout)
		}
	}
}

// TestHooksAndConfigProgramsOff plants every program-running setting a
// repository can hold (hooks, an fsmonitor, a hooksPath inside the work
// tree, a pager, an editor, an external diff) and runs each action that
// could reach them: none runs.
func TestHooksAndConfigProgramsOff(t *testing.T) {
	repo := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	mon := hookScript(t, repo, ".husky/fsmonitor", marker)
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change", "reference-transaction", "post-checkout"} {
		hookScript(t, filepath.Join(repo, ".git", "hooks"), h, marker)
		hookScript(t, filepath.Join(repo, ".husky"), h, marker)
	}
	for _, kv := range [][2]string{
		{"core.hooksPath", ".husky"}, {"core.fsmonitor", mon}, {"core.pager", mon}, {"core.editor", mon},
		{"diff.external", mon}, {"gc.auto", "1"},
	} {
		git(t, "-C", repo, "config", kv[0], kv[1])
	}
	writeFile(t, repo, "a.txt", "changed\n")
	for _, st := range []struct{ action, payload string }{
		{"git_status", `{}`},
		{"git_diff", `{}`},
		{"git_add", `{"files":["a.txt"]}`},
		{"git_commit", `{"message":"m"}`},
		{"git_log", `{}`},
		{"git_branch", `{"command":{"type":"git_branch","branch":"b2","create":true}}`},
	} {
		r := runAgent(t, "", nil, strings.NewReader(request(st.action, st.payload)), "-C", repo, "--no-register")
		if r.code != 0 || r.resp.Status != contract.StatusSuccess {
			t.Fatalf("%s: %s", st.action, r.stdout)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a planted program ran:\n%s", b)
	}
}

// TestPinnedGitDir gives the agent --git-dir and --work-tree: a .git file
// in the work tree that points elsewhere (at a git directory with hooks) is
// never read, and the commit lands in the pinned repository.
func TestPinnedGitDir(t *testing.T) {
	repo := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, "-C", repo, "worktree", "add", "-q", "--detach", wt, "HEAD")
	gitDir := strings.TrimSpace(git(t, "-C", wt, "rev-parse", "--absolute-git-dir"))
	evil := filepath.Join(t.TempDir(), "evil")
	git(t, "init", "-q", evil)
	git(t, "-C", evil, "config", "core.hooksPath", filepath.Join(evil, "hooks"))
	git(t, "-C", evil, "config", "core.fsmonitor", hookScript(t, evil, "mon", marker))
	hookScript(t, filepath.Join(evil, "hooks"), "pre-commit", marker)
	writeFile(t, wt, ".git", "gitdir: "+filepath.Join(evil, ".git")+"\n")
	writeFile(t, wt, "a.txt", "pinned\n")
	pin := []string{"-C", wt, "--no-register", "--git-dir", gitDir, "--work-tree", wt}
	for _, st := range []struct{ action, payload string }{
		{"git_add", `{"files":["a.txt"]}`},
		{"git_commit", `{"message":"pinned commit"}`},
	} {
		r := runAgent(t, "", nil, strings.NewReader(request(st.action, st.payload)), pin...)
		if r.code != 0 || r.resp.Status != contract.StatusSuccess {
			t.Fatalf("%s: %s", st.action, r.stdout)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a hook of the planted git directory ran:\n%s", b)
	}
	if got := git(t, "--git-dir", gitDir, "log", "-1", "--format=%s"); !strings.Contains(got, "pinned commit") {
		t.Errorf("the commit is not in the pinned repository: %q", got)
	}
	// Pinned, the work tree is the pin's: a path that leaves it is still
	// refused, relative or absolute, and one through a symbolic link out
	// of it too.
	outside := t.TempDir()
	writeFile(t, outside, "x.txt", "x\n")
	if err := os.Symlink(outside, filepath.Join(wt, "out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x.txt", filepath.Join(outside, "x.txt"), "out/x.txt", filepath.Join(repo, "a.txt")} {
		r := runAgent(t, "", nil, strings.NewReader(request("git_add", fmt.Sprintf(`{"files":[%q]}`, p))), pin...)
		if r.code != 0 || r.resp.Result.Metadata["error_kind"] != server.KindPathRefused {
			t.Errorf("pinned git_add %s: %s", p, r.stdout)
		}
	}
	// A pin that is not a directory is refused at once.
	r := runAgent(t, "", nil, strings.NewReader(request("git_status", `{}`)), "--git-dir", "relative", "--work-tree", wt, "--no-register")
	if r.code != 0 || r.resp.Result.Metadata["error_kind"] != server.KindInvalidInvocation {
		t.Errorf("a relative --git-dir: %s", r.stdout)
	}
}

// TestNestedGitPathsRefused refuses paths through a .git at any depth.
func TestNestedGitPathsRefused(t *testing.T) {
	repo := newRepo(t)
	git(t, "init", "-q", filepath.Join(repo, "sub"))
	writeFile(t, repo, "sub/.git/hooks/pre-commit", "#!/bin/sh\n")
	for _, p := range []string{"sub/.git/config", "sub/.git/hooks/pre-commit", "sub/.GIT/config", ".git/config"} {
		payload := fmt.Sprintf(`{"files":[%q]}`, p)
		r := runAgent(t, "", nil, strings.NewReader(request("git_add", payload)), "-C", repo, "--no-register")
		if r.code != 0 || r.resp.Result.Metadata["error_kind"] != server.KindPathRefused {
			t.Errorf("%s: %s", p, r.stdout)
		}
	}
}
