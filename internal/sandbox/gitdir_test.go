package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

// fakeRepo lays out, without git, a checkout at ws: a .git folder with a
// config and a hooks folder, and a submodule at sub whose .git file points
// into .git/modules/sub.
func fakeRepo(t *testing.T, ws string) {
	t.Helper()
	mustWrite(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	mustWrite(t, filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n")
	mustWrite(t, filepath.Join(ws, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n")
	mustWrite(t, filepath.Join(ws, ".git", "modules", "sub", "HEAD"), "ref: refs/heads/main\n")
	mustWrite(t, filepath.Join(ws, ".git", "modules", "sub", "config"), "[core]\n")
	mustWrite(t, filepath.Join(ws, "sub", ".git"), "gitdir: ../.git/modules/sub\n")
	mustWrite(t, filepath.Join(ws, "main.txt"), "mine\n")
}

// gitAttack tries, each in its own way, to leave something in the
// checkout's git metadata that the user's next git command would run.
// Each line prints "WROTE <n>" when the attempt worked.
const gitAttack = `
printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' >> .git/config 2>/dev/null && echo "WROTE config"
printf '#!/bin/sh\ntouch /tmp/pwned\n' > .git/hooks/pre-commit 2>/dev/null && echo "WROTE hook"
chmod +x .git/hooks/pre-commit.sample 2>/dev/null && echo "WROTE chmod"
printf 'gitdir: ../evil\n' > sub/.git 2>/dev/null && echo "WROTE subfile"
mv sub/.git sub/.git-old 2>/dev/null && echo "WROTE mvsub"
mv .git .git-old 2>/dev/null && echo "WROTE mv"
rm -rf .git 2>/dev/null; test -e .git/HEAD || echo "WROTE rm"
echo built > out.txt && echo "BUILD-OUTPUT-OK"
exit 0`

// TestBwrapGitMetadataReadOnly runs a build that tries to plant a hook and
// core.fsmonitor, rewrite a submodule's .git file, and rename or remove
// .git, in a real bwrap sandbox: every attempt fails and the host's git
// metadata is unchanged, while the workspace stays writable. The same
// script without isolation succeeds (so the test can fail).
func TestBwrapGitMetadataReadOnly(t *testing.T) {
	bw := detected(t)
	base := hostDir(t)
	ws := filepath.Join(base, "repo")
	fakeRepo(t, ws)
	env := []string{"PATH=/usr/bin:/bin"}
	job := sandbox.Job{Workspace: ws, Script: gitAttack, Env: env, CacheDir: filepath.Join(base, "cache")}
	res := run(t, bw, job)
	out := string(res.Stdout)
	if strings.Contains(out, "WROTE") || !strings.Contains(out, "BUILD-OUTPUT-OK") {
		t.Errorf("inside bwrap the build changed the git metadata (or could not write its workspace):\n%s", out)
	}
	checkFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n")
	checkFile(t, filepath.Join(ws, "sub", ".git"), "gitdir: ../.git/modules/sub\n")
	if _, err := os.Lstat(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook planted inside bwrap reached the host")
	}
	if st, err := os.Stat(filepath.Join(ws, ".git", "hooks", "pre-commit.sample")); err != nil || st.Mode()&0o111 != 0 {
		t.Errorf("the sample hook was made executable: %v %v", st, err)
	}

	control := filepath.Join(base, "control")
	fakeRepo(t, control)
	job.Workspace = control
	res = run(t, sandbox.None{}, job)
	for _, want := range []string{"WROTE config", "WROTE hook", "WROTE subfile", "WROTE mv"} {
		if !strings.Contains(string(res.Stdout), want) {
			t.Errorf("control run without isolation lacks %q:\n%s", want, res.Stdout)
		}
	}
}

// TestBwrapGitDirInsideWorkspace covers a .git file whose git directory
// lies elsewhere in the workspace (git init --separate-git-dir): both are
// read-only.
func TestBwrapGitDirInsideWorkspace(t *testing.T) {
	bw := detected(t)
	base := hostDir(t)
	ws := filepath.Join(base, "repo")
	mustWrite(t, filepath.Join(ws, "meta", "HEAD"), "ref: refs/heads/main\n")
	mustWrite(t, filepath.Join(ws, "meta", "config"), "[core]\n")
	mustWrite(t, filepath.Join(ws, ".git"), "gitdir: meta\n")
	script := `echo x >> meta/config 2>/dev/null && echo WROTE meta
echo 'gitdir: other' > .git 2>/dev/null && echo WROTE file
rm -f .git 2>/dev/null; test -f .git || echo WROTE rm
exit 0`
	res := run(t, bw, sandbox.Job{Workspace: ws, Script: script, Env: []string{"PATH=/usr/bin:/bin"}})
	if strings.Contains(string(res.Stdout), "WROTE") {
		t.Errorf("the build changed the separate git directory:\n%s", res.Stdout)
	}
	checkFile(t, filepath.Join(ws, ".git"), "gitdir: meta\n")
	checkFile(t, filepath.Join(ws, "meta", "config"), "[core]\n")
}

// TestGitMetadataArgs checks the mounts without running anything: bwrap
// binds each .git entry read-only after the writable workspace and before
// the masks; containers mount them read-only.
func TestGitMetadataArgs(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "repo")
	fakeRepo(t, ws)
	job := sandbox.Job{Workspace: ws, Script: "make", Image: "img", Name: "n", Env: []string{"PATH=/usr/bin"}}
	args := sandbox.Bwrap{}.Args(job)
	got := strings.Join(args, " ")
	dotGit, subGit := filepath.Join(ws, ".git"), filepath.Join(ws, "sub", ".git")
	for _, want := range []string{"--ro-bind " + dotGit + " " + dotGit, "--ro-bind " + subGit + " " + subGit} {
		if !strings.Contains(got, want) {
			t.Errorf("bwrap args lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, filepath.Join(dotGit, "modules")) {
		t.Errorf("a git directory under .git is bound twice:\n%s", got)
	}
	wsAt, gitAt := slices.Index(args, "--bind"), slices.Index(args, dotGit)
	for i := range args {
		if args[i] == "--bind" && args[i+1] == ws {
			wsAt = i
		}
	}
	if gitAt < wsAt {
		t.Errorf("the read-only .git must come after the workspace bind:\n%s", got)
	}
	cargs := strings.Join(sandbox.Container{Engine: "docker"}.Args(job, 1000, 1000), " ")
	for _, want := range []string{"--volume " + dotGit + ":" + dotGit + ":ro", "--volume " + subGit + ":" + subGit + ":ro"} {
		if !strings.Contains(cargs, want) {
			t.Errorf("container args lack %q:\n%s", want, cargs)
		}
	}
}

func checkFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", path, b, err, want)
	}
}
