package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/service"
)

// leftovers is what a heal leaves in its job's clone and job folder that
// the next job must not find.
var leftovers = [][]string{
	{"branch", "leftover"},
	{"tag", "leftover"},
	{"config", "salve.leftover", "yes"},
	{"update-ref", "refs/remotes/origin/leftover", "HEAD"},
	{"update-ref", "refs/salve/leftover", "HEAD"},
}

// TestKeptCloneHoldsNothingOfTheLastJob: the job's clone stays in its job
// folder for the next job of the repository (same path, no clone made
// again), and that job finds none of what the last one left there: a
// branch, a tag, a setting, refs, an object, a reflog, a file beside the
// clone. It is at its own commit on its own branch, has the repository's
// branches as they are now as origin's and nothing else, and git finds it
// whole.
func TestKeptCloneHoldsNothingOfTheLastJob(t *testing.T) {
	bare, work := upstream(t, "a")
	blobFile := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(blobFile, []byte("only the first job wrote this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	blob := gitOut(t, "", "hash-object", "--", blobFile)
	q := newQueue(t, ackWait, 2)
	type look struct {
		dir, head, branch, refs string
		setting, object, reflog bool
		beside                  bool
		fsck                    string
		err                     error
	}
	looks := make(chan look, 2)
	jobs := 0
	runWorker(t, &Worker{Queue: q, Name: "w", TempDir: t.TempDir(), ClonesDir: t.TempDir(),
		Heal: func(_ context.Context, s Spec) (*results.Results, error) {
			jobs++
			var l look
			l.dir = s.Dir
			l.head, l.err = gitTry(s.Dir, "rev-parse", "HEAD")
			l.branch, _ = gitTry(s.Dir, "symbolic-ref", "--short", "HEAD")
			l.refs, _ = gitTry(s.Dir, "for-each-ref", "--format=%(refname)")
			_, err := gitTry(s.Dir, "config", "--get", "salve.leftover")
			l.setting = err == nil
			_, err = gitTry(s.Dir, "cat-file", "-e", blob)
			l.object = err == nil
			_, err = os.Stat(filepath.Join(s.Dir, ".git", "logs", "refs", "heads", "leftover"))
			l.reflog = err == nil
			_, err = os.Stat(filepath.Join(filepath.Dir(s.Dir), "leftover"))
			l.beside = err == nil
			fsck, err := gitCmd(s.Dir, "fsck", "--no-progress", "--no-dangling").CombinedOutput()
			if l.fsck = strings.TrimSpace(string(fsck)); err != nil {
				l.fsck += " (" + err.Error() + ")"
			}
			if jobs == 1 {
				for _, a := range leftovers {
					if _, err := gitTry(s.Dir, a...); err != nil && l.err == nil {
						l.err = errors.Join(errors.New(strings.Join(a, " ")), err)
					}
				}
				if _, err := gitTry(s.Dir, "hash-object", "-w", "--", blobFile); err != nil && l.err == nil {
					l.err = err
				}
				if err := os.WriteFile(filepath.Join(filepath.Dir(s.Dir), "leftover"), nil, 0o644); err != nil && l.err == nil {
					l.err = err
				}
			}
			looks <- l
			return &results.Results{Outcome: results.OutcomeGreen}, nil
		}})

	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	first := <-looks
	// The repository moves on: main gets a commit, and a branch appears.
	main := commitFile(t, work, "b")
	gitOut(t, work, "checkout", "-q", "-b", "feature")
	feature := commitFile(t, work, "c")
	gitOut(t, work, "push", "-q", "origin", "main", "feature")
	submitAndWait(t, q, service.Request{Repo: bare, Ref: "feature"})
	second := <-looks

	for i, l := range []look{first, second} {
		if l.err != nil {
			t.Fatalf("job %d: %v", i+1, l.err)
		}
		if l.fsck != "" {
			t.Errorf("job %d: git fsck of its clone: %s", i+1, l.fsck)
		}
	}
	if second.dir != first.dir {
		t.Errorf("the second job healed in %s, the first in %s: want the kept job folder", second.dir, first.dir)
	}
	if second.head != feature || second.branch != "feature" {
		t.Errorf("the second job's clone is at %s on %q, want %s on feature", second.head, second.branch, feature)
	}
	refs := strings.Fields(second.refs)
	want := []string{"refs/heads/feature", "refs/remotes/origin/HEAD", "refs/remotes/origin/feature", "refs/remotes/origin/main"}
	if !slices.Equal(refs, want) {
		t.Errorf("the second job's clone has the refs %v, want %v", refs, want)
	}
	if got := gitOut(t, second.dir, "rev-parse", "refs/remotes/origin/main"); got != main {
		t.Errorf("origin/main is %s, want the repository's %s", got, main)
	}
	if second.setting || second.object || second.reflog || second.beside {
		t.Errorf("the second job found the first one's setting %v, object %v, reflog %v, file beside the clone %v",
			second.setting, second.object, second.reflog, second.beside)
	}
}

// TestKeptCloneMadeAgain: a job folder whose clone is not one this
// worker made (its git directory a file, or its saved settings gone) gets
// a new clone, at the job's commit.
func TestKeptCloneMadeAgain(t *testing.T) {
	bare, _ := upstream(t, "a")
	tip := gitOut(t, bare, "rev-parse", "main")
	q := newQueue(t, ackWait, 2)
	clones := t.TempDir()
	got := recordingWorker(t, q, clones, prometheus.NewRegistry())
	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	dir := (<-got).spec.Dir
	for _, spoil := range []func() error{
		func() error { return os.Remove(filepath.Join(filepath.Dir(dir), cloneConfig)) },
		func() error {
			if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /nowhere\n"), 0o644)
		},
	} {
		if err := spoil(); err != nil {
			t.Fatal(err)
		}
		submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
		if s := <-got; s.head != tip || s.spec.Dir != dir {
			t.Errorf("after the job folder was spoilt: a clone at %s in %s, want %s in %s", s.head, s.spec.Dir, tip, dir)
		}
	}
}

// TestConfigValue: a remote's address goes into the job's clone's
// configuration as git reads it back, whatever it holds; a control
// character git cannot escape is refused.
func TestConfigValue(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config")
	for _, v := range []string{
		"https://example.com/acme/api.git",
		`/srv/a "quoted" \back\slash`,
		"/srv/x # not a comment ; nor this",
		"/srv/tab\there/new\nline/back\bspace",
		"  /srv/spaces around  ",
		"/srv/ünïcödé/[remote \"x\"]",
	} {
		q, err := configValue(v)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if err := os.WriteFile(file, []byte("[remote \"origin\"]\n\turl = "+q+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := gitCmd("", "config", "--file", file, "--null", "--get", "remote.origin.url").Output()
		if got := strings.TrimSuffix(string(out), "\x00"); err != nil || got != v {
			t.Errorf("%q: git reads %q (%v)", v, got, err)
		}
	}
	for _, v := range []string{"/srv/a\rb", "/srv/\x00", "/srv/\x1b[31m"} {
		if _, err := configValue(v); err == nil {
			t.Errorf("%q: accepted", v)
		}
	}
}
