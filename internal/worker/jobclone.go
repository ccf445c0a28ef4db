package worker

// The job's clone. A job heals in a clone of its own (Spec.Dir) of the
// kept clone: it borrows the kept clone's objects (objects/info/alternates),
// has the kept clone's branches as origin's, and nothing is checked out in
// it (the heal makes its own worktree of it). In a job folder it stays from
// one job to the next, so that the heal's worktree of it, which the clone
// records, can be kept and reused by the next job (heal.KeepAuto: a
// repository of many files), and so that a job costs no clone.
//
// Nothing of the last job reaches the next through it. prepareClone
// empties its git directory of everything but the heal's worktree records
// (whose logs it drops: the heal verifies, resets and cleans the worktree
// itself before it reuses it), then writes it again: the configuration
// (git init's own settings, saved beside the clone when it was made, and
// origin), the alternates, HEAD at the job's commit, and the refs, in one
// git update-ref. So no ref, reflog, object or setting a job made or
// changed is left, and the refs are the kept clone's branches as they are
// now. Any doubt about the folder (not a folder, a symbolic link, the
// saved settings missing) and it is made again with git init.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/safefile"
)

// cloneConfig is the file, beside the job's clone, of the settings git
// init wrote when it made the clone (core.*: what git found of the file
// system), which every job's configuration starts with.
const cloneConfig = "repo.config"

// maxCloneConfig bounds the saved settings: git init writes a few lines.
const maxCloneConfig = 64 << 10

// ref is one ref of a kept clone: its full name and its object.
type ref struct{ name, sha string }

// tips is what a job's clone is made from: the commit to heal, the kept
// clone's branches (refs/heads/*, the repository's own), and the branch
// its HEAD names ("" when it names none of them).
type tips struct {
	sha      string
	branches []ref
	head     string
}

// prepareClone makes dir the job's clone of the bare repository bare, at
// t.sha, on src.Local or detached: made with git init when dir holds no
// clone this worker made, else emptied and written again (see above).
func prepareClone(ctx context.Context, bare, dir string, src source, t tips) error {
	bare, err := filepath.Abs(bare)
	if err != nil {
		return fmt.Errorf("worker: the job's clone: %w", err)
	}
	saved := filepath.Join(filepath.Dir(dir), cloneConfig)
	gd := filepath.Join(dir, ".git")
	core, err := keptClone(dir, saved)
	if err == nil {
		err = emptyGitDir(gd)
	}
	if err != nil {
		if core, err = initClone(ctx, dir, saved); err != nil {
			return err
		}
	}
	remote, err := originConfig(src)
	if err != nil {
		return fmt.Errorf("worker: the job's clone: %w", err)
	}
	head := t.sha + "\n"
	if src.Local != "" {
		head = "ref: refs/heads/" + src.Local + "\n"
	}
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/remotes/origin"} {
		if err := os.MkdirAll(filepath.Join(gd, d), 0o700); err != nil {
			return fmt.Errorf("worker: the job's clone: %w", err)
		}
	}
	files := []struct{ name, body string }{
		{"objects/info/alternates", filepath.Join(bare, "objects") + "\n"},
		{"config", string(core) + remote},
		{"HEAD", head},
	}
	if t.head != "" {
		// origin/HEAD names the remote's default branch, as a clone's does.
		files = append(files, struct{ name, body string }{"refs/remotes/origin/HEAD", "ref: refs/remotes/origin/" + t.head + "\n"})
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(gd, filepath.FromSlash(f.name)), []byte(f.body), 0o600); err != nil {
			return fmt.Errorf("worker: the job's clone: %w", err)
		}
	}
	// One update-ref writes every ref (-z: no name is parsed from text).
	var in bytes.Buffer
	for _, b := range t.branches {
		fmt.Fprintf(&in, "create refs/remotes/origin/%s\x00%s\x00", strings.TrimPrefix(b.name, "refs/heads/"), b.sha)
	}
	if src.Local != "" {
		fmt.Fprintf(&in, "create refs/heads/%s\x00%s\x00", src.Local, t.sha)
	}
	if _, err := gitIn(ctx, "", &in, "--git-dir="+gd, "update-ref", "-z", "--stdin"); err != nil {
		return fmt.Errorf("worker: set up the job's clone: %w", err)
	}
	return nil
}

// keptClone returns the saved settings of the job's clone at dir, or why
// it cannot be reused: dir and its git directory must be folders (not
// links), and the settings saved at saved.
func keptClone(dir, saved string) ([]byte, error) {
	for _, p := range []string{dir, filepath.Join(dir, ".git")} {
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", p)
		}
	}
	return safefile.Read(saved, maxCloneConfig)
}

// initClone makes an empty repository at dir with git init (no
// templates: no hook samples) and saves its settings at saved.
func initClone(ctx context.Context, dir, saved string) ([]byte, error) {
	if err := heal.RemoveAllForce(dir); err != nil {
		return nil, fmt.Errorf("worker: remove the job's old clone: %w", err)
	}
	if _, err := git(ctx, "", "init", "--quiet", "--template=", "--", dir); err != nil {
		return nil, fmt.Errorf("worker: make the job's clone: %w", err)
	}
	core, err := safefile.Read(filepath.Join(dir, ".git", "config"), maxCloneConfig)
	if err != nil {
		return nil, fmt.Errorf("worker: make the job's clone: %w", err)
	}
	if err := os.WriteFile(saved, core, 0o600); err != nil {
		return nil, fmt.Errorf("worker: make the job's clone: %w", err)
	}
	return core, nil
}

// emptyGitDir removes everything from the git directory gd but the
// records of its worktrees, and from those their logs.
func emptyGitDir(gd string) error {
	entries, err := os.ReadDir(gd)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(gd, e.Name())
		if e.Name() != "worktrees" || !e.IsDir() {
			if err := heal.RemoveAllForce(p); err != nil {
				return err
			}
			continue
		}
		wts, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, wt := range wts {
			if err := heal.RemoveAllForce(filepath.Join(p, wt.Name(), "logs")); err != nil {
				return err
			}
		}
	}
	return nil
}

// originConfig is the job's clone's section of origin: it fetches the
// repository's branches (src.Base) without tags, as a clone made with
// --no-tags does, and pushes to the fork when the change is a fork's.
func originConfig(src source) (string, error) {
	url, err := configValue(src.Base)
	if err != nil {
		return "", err
	}
	s := "[remote \"origin\"]\n\turl = " + url + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\ttagOpt = --no-tags\n"
	if src.Fork != "" {
		push, err := configValue(src.Fork)
		if err != nil {
			return "", err
		}
		s += "\tpushurl = " + push + "\n"
	}
	return s, nil
}

// configValue quotes v as a value of a git configuration file: between
// double quotes, with backslash, double quote, newline, tab and backspace
// escaped as git reads them. Another control character has no escape in
// git's syntax and is refused.
func configValue(v string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r < 0x20 || r == 0x7f:
			return "", errors.New("a control character in a remote's address")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}
