package worker

// Kept clones. The worker keeps one bare clone of each repository it heals,
// in salve's data folder, and fetches each job's branches into it instead
// of cloning the repository again (only those the remote says moved). A job
// then heals in a clone of its own of the kept one (jobclone.go): it
// borrows the kept clone's objects and has its branches as origin's, and
// the heal makes its worktree from it as salve heal does from a checkout.
//
// Who may write what:
//   - refs/heads/* of a kept clone are the repository's own branches, only
//     ever fetched from the repository itself (a fork's upstream for a
//     fork's job). A job's clone sees them as refs/remotes/origin/*, where
//     the heal's assembly reads the rules (.salve.yml) of the target branch.
//   - A fork's branches go to refs/salve/untrusted/<fork>/heads/*, which a
//     job's clone never copies: no later job reads them as the repository's.
//
// Job folders: a kept clone's folder also holds the folders jobs heal in,
// jobs/0, jobs/1 and so on, each with its lock (jobs/N.lock, exclusive). A
// job takes the first free one, where the job's clone an earlier job left
// is written again for it, so the jobs of a repository have their clone,
// and the heal its worktree of it, at the same paths from one job to the
// next: the toolchains' caches that are keyed by path (Go's compile of the
// main module and go test's results, cargo's fingerprints) hit as they do
// on a CI runner that builds in the same folder each time, and a heal
// that keeps its worktree (a large repository) finds it again.
//
// Concurrency: a kept clone's folder holds two lock files. Every job using
// it holds executor.LockFile shared until its heal ends (its clone reads
// the kept objects), so a trim (executor.TrimCaches) never removes it under
// a job. Fetching into it and reading its branches happen under
// fetch.lock, exclusive, so two jobs never fetch at once. Objects are only ever added
// (automatic gc is off), which the borrowing clones rely on.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/safefile"
	"github.com/salve-dev/salve/internal/statedir"
)

// clonesFolder is the folder, in salve's data folder, of the kept clones.
const clonesFolder = "clones"

// Inside a kept clone's folder: the bare clone, the lock its fetches
// take, and the folder of the job folders.
const (
	keptGit   = "git"
	fetchLock = "fetch.lock"
	jobsDir   = "jobs"
)

// Inside a job folder: the job's clone (Spec.Dir); the heal puts its
// worktree beside it.
const jobClone = "repo"

// untrustedRefs is the namespace, in a kept clone, of the branches fetched
// from forks.
const untrustedRefs = "refs/salve/untrusted/"

// How a job's repository was made ready (Checkout metrics, logs).
const (
	// HowFetch: fetched into the repository's kept clone.
	HowFetch = "fetch"
	// HowClone: the kept clone was made (or made again, after a fetch into
	// it failed) by this job.
	HowClone = "clone"
	// HowPrivate: cloned for this job alone, the kept clone being in use
	// by other jobs and broken, or unavailable.
	HowPrivate = "private"
)

// ClonesDir returns the folder of a worker's kept clones: "clones" in
// salve's data folder (package internal/statedir). It is laid out as a
// cache directory of its own (executor.RepoCacheDir names each
// repository's folder), so TrimClones trims it by the build cache's rule.
func ClonesDir(getenv func(string) string) (string, error) {
	return statedir.Data(getenv, clonesFolder)
}

// TrimClones removes the kept clones under dir that no job used for 30
// days, then, least recently used first, while they take more than budget
// bytes; a clone a job is using is kept (executor.TrimCaches, the build
// cache's rule).
func TrimClones(ctx context.Context, dir string, budget int64) (executor.TrimReport, error) {
	return executor.TrimCaches(ctx, dir, budget, 0)
}

// source is what a job needs of its repository.
type source struct {
	// Base is the repository whose branches are trusted: the job's, or
	// the upstream of a fork's change.
	Base string
	// Fork is the fork that holds the change; empty for the repository's
	// own branches.
	Fork string
	// Ref is the branch to heal, in Fork when it is set, else in Base.
	Ref string
	// Local is the branch the job's clone is on; empty leaves it detached.
	Local string
	// Target is Base's default branch, whose rules the heal reads; empty
	// when it is not known.
	Target string
	// Resume is the heal branch an earlier delivery pushed, to heal on
	// from; empty otherwise.
	Resume string
	// Sha is the commit to heal when the job names one (and does not
	// resume).
	Sha string
	// Tips are the commits the remotes said their branches are at (by the
	// ref each goes to in a kept clone, see dst): a branch a kept clone
	// already holds at that commit is not fetched again.
	Tips map[string]string
}

// dst is where branch, fetched from the fork (fork) or from Base, goes in
// a kept clone.
func (s source) dst(branch string, fork bool) string {
	if fork {
		return untrustedRefs + refKey(s.Fork) + "/heads/" + branch
	}
	return "refs/heads/" + branch
}

// head is the ref in a kept clone of the commit to heal (unless Sha names
// it).
func (s source) head() string {
	b := s.Ref
	if s.Resume != "" {
		b = s.Resume
	}
	return s.dst(b, s.Fork != "")
}

// refKey names a fork in a kept clone's ref namespace: a hash of its
// identity, so no name from outside becomes part of a ref.
func refKey(repo string) string {
	id, ok := gitremote.Identity(repo)
	if !ok {
		id = repo
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:8])
}

// checkout is a job's repository, ready for its heal.
type checkout struct {
	// Dir is the job's clone.
	Dir string
	// How is HowFetch, HowClone or HowPrivate.
	How string
	// release lets the kept clone go (a trim may remove it again).
	release func()
}

// checkout makes the job's clone: in a job folder of the kept clone of
// src.Base, fetched first, or (when there is none to keep) at tmp/repo,
// from a clone of its own in tmp. A fetch into the kept clone that fails
// gives a clean clone: of the kept one when no other job uses it, else of
// the job's own.
func (w *Worker) checkout(ctx context.Context, tmp string, src source, log *slog.Logger) (*checkout, error) {
	id, ok := gitremote.Identity(src.Base)
	if w.clones == "" || !ok {
		return private(ctx, tmp, src)
	}
	kept := executor.RepoCacheDir(w.clones, id)
	lock, err := useKept(ctx, kept)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log.Warn("the kept clone cannot be used; cloning for this job alone", "error", err)
		return private(ctx, tmp, src)
	}
	co, err := fromKept(ctx, kept, lock, src, log)
	if errors.Is(err, errKeptBusy) {
		return private(ctx, tmp, src)
	}
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	return co, nil
}

// errKeptBusy says a kept clone could not be fetched into and other jobs
// use it, so it cannot be cloned again now.
var errKeptBusy = errors.New("the kept clone is broken and in use")

// fromKept fetches src into the kept clone in the folder kept, whose lock
// the caller holds shared, and makes the job's clone from it in a job
// folder of its own. On errKeptBusy the lock is released.
func fromKept(ctx context.Context, kept string, lock *os.File, src source, log *slog.Logger) (co *checkout, err error) {
	slot, freeSlot, err := takeSlot(kept)
	if err != nil {
		return nil, fmt.Errorf("worker: job folder: %w", err)
	}
	defer func() {
		if err != nil {
			freeSlot()
		}
	}()
	bare := filepath.Join(kept, keptGit)
	t, how, err := fetchKept(ctx, kept, bare, lock, src, log)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(slot, jobClone)
	if err := prepareClone(ctx, bare, dir, src, t); err != nil {
		return nil, err
	}
	return &checkout{Dir: dir, How: how, release: func() { freeSlot(); _ = lock.Close() }}, nil
}

// fetchKept fetches src into the kept clone bare, in the folder kept,
// under its fetch lock, and says how: HowFetch, or HowClone when the kept
// clone was made (again). A kept clone that cannot be fetched into is made
// again when no other job uses it (lock, held shared, can be taken
// exclusively); else errKeptBusy, with lock released.
func fetchKept(ctx context.Context, kept, bare string, lock *os.File, src source, log *slog.Logger) (tips, string, error) {
	fl, err := os.OpenFile(filepath.Join(kept, fetchLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return tips{}, "", fmt.Errorf("worker: kept clone: %w", err)
	}
	defer fl.Close() // releases the fetch lock
	if err := flockCtx(ctx, fl, syscall.LOCK_EX); err != nil {
		return tips{}, "", fmt.Errorf("worker: kept clone: %w", err)
	}
	how := HowFetch
	if !isBare(bare) {
		how = HowClone
	}
	t, err := fill(ctx, bare, src)
	var f *failure
	if err != nil && ctx.Err() == nil && !(errors.As(err, &f) && f.permanent) {
		// Clone it again, but only when no other job borrows its objects:
		// taking the lock exclusively says so (on Linux a failed attempt
		// also drops the shared hold).
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			log.Warn("fetching into the kept clone failed and other jobs use it; cloning for this job alone", "error", err)
			_ = lock.Close()
			return tips{}, "", errKeptBusy
		}
		log.Warn("fetching into the kept clone failed; cloning it again", "error", err)
		how = HowClone
		if err = os.RemoveAll(bare); err == nil {
			t, err = fill(ctx, bare, src)
		}
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_SH) // converts: nobody else holds it
	}
	return t, how, err
}

// private makes the job's clone at tmp/repo from a clone of its own in
// tmp, removed with tmp.
func private(ctx context.Context, tmp string, src source) (*checkout, error) {
	bare := filepath.Join(tmp, "clone.git")
	t, err := fill(ctx, bare, src)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, jobClone)
	if err := prepareClone(ctx, bare, dir, src, t); err != nil {
		return nil, err
	}
	return &checkout{Dir: dir, How: HowPrivate, release: func() {}}, nil
}

// takeSlot takes the first free job folder of the kept clone's folder
// kept (its lock, exclusive), holding only the job's clone an earlier job
// left there (prepareClone makes it the job's) and its saved settings.
// free lets it go.
func takeSlot(kept string) (dir string, free func(), err error) {
	jobs := filepath.Join(kept, jobsDir)
	if err := os.MkdirAll(jobs, 0o700); err != nil {
		return "", nil, err
	}
	for n := 0; n < maxSlots; n++ {
		f, err := os.OpenFile(filepath.Join(jobs, strconv.Itoa(n)+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return "", nil, err
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			_ = f.Close()
			continue
		}
		dir := filepath.Join(jobs, strconv.Itoa(n))
		if err := tidySlot(dir); err != nil {
			_ = f.Close()
			return "", nil, err
		}
		return dir, func() { _ = f.Close() }, nil
	}
	return "", nil, fmt.Errorf("all %d job folders of %s are taken", maxSlots, kept)
}

// tidySlot makes dir a folder holding nothing but the job's clone and its
// saved settings (an older worker's heal worktree, say, goes).
func tidySlot(dir string) error {
	if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
		if err := os.Remove(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != jobClone && e.Name() != cloneConfig {
			if err := heal.RemoveAllForce(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxSlots bounds the job folders of one kept clone: far more than the
// jobs of one repository a machine heals at once.
const maxSlots = 256

// useKept takes the lock of the kept clone's folder kept shared, making
// the folder first, and marks it used now (the last use a trim goes by).
// A trim that removed the folder between its creation and the lock is
// noticed (the lock file is no longer the one at its path) and the folder
// made again.
func useKept(ctx context.Context, kept string) (*os.File, error) {
	path := filepath.Join(kept, executor.LockFile)
	for range 3 {
		if err := os.MkdirAll(kept, 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := flockCtx(ctx, f, syscall.LOCK_SH); err != nil {
			_ = f.Close()
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			t := time.Now()
			_ = os.Chtimes(kept, t, t)
			return f, nil
		}
		_ = f.Close()
	}
	return nil, fmt.Errorf("%s was removed each time it was made", kept)
}

// flockCtx takes the flock how (LOCK_SH or LOCK_EX) of f, trying again
// until it gets it or ctx ends.
func flockCtx(ctx context.Context, f *os.File, how int) error {
	wait := 10 * time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

// isBare reports whether dir looks like a bare repository: a HEAD and an
// object store. Anything else wrong with it shows when git reads it.
func isBare(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "objects"))
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// fill fetches what src needs into the bare repository at bare (made when
// it is not one) and returns the commit to heal and the branches a job's
// clone gets from it. A branch the kept clone already holds at the commit
// the remote named (src.Tips) is not fetched: the fetch would change
// nothing. Every git command names bare as its git directory, so a broken
// one is never taken for a repository around it. A failed fetch is never
// permanent: the remote answered ls-remote just before, so the fault may
// be the kept clone's.
func fill(ctx context.Context, bare string, src source) (tips, error) {
	var have []refEntry // the kept clone's refs before the fetch, when read
	if !isBare(bare) {
		if err := os.RemoveAll(bare); err != nil {
			return tips{}, fmt.Errorf("worker: kept clone: %w", err)
		}
		if _, err := git(ctx, "", "init", "--quiet", "--bare", "--template=", "--", bare); err != nil {
			return tips{}, fmt.Errorf("worker: kept clone: %w", err)
		}
	} else if len(src.Tips) > 0 {
		have, _ = listRefs(ctx, bare, src) // unread: everything is fetched
	}
	gd := "--git-dir=" + bare
	var trusted, forked []string
	add := func(list []string, branch string, fork bool) []string {
		dst := src.dst(branch, fork)
		if tip := src.Tips[dst]; tip != "" && slices.ContainsFunc(have, func(e refEntry) bool { return e.name == dst && e.sha == tip }) {
			return list
		}
		spec := "+refs/heads/" + branch + ":" + dst
		if slices.Contains(list, spec) {
			return list
		}
		return append(list, spec)
	}
	if src.Target != "" {
		trusted = add(trusted, src.Target, false)
	}
	for _, b := range []string{src.Ref, src.Resume} {
		if b == "" {
			continue
		}
		if src.Fork != "" {
			forked = add(forked, b, true)
		} else {
			trusted = add(trusted, b, false)
		}
	}
	fetch := []string{gd, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--update-head-ok", "--"}
	if len(trusted) > 0 {
		if _, err := git(ctx, "", append(append(fetch, src.Base), trusted...)...); err != nil {
			return tips{}, fmt.Errorf("fetch %s: %w", src.Base, err)
		}
	}
	if len(forked) > 0 {
		if _, err := git(ctx, "", append(append(fetch, src.Fork), forked...)...); err != nil {
			return tips{}, fmt.Errorf("fetch %s: %w", src.Fork, err)
		}
	}
	if src.Target != "" && headBranch(bare) != src.Target {
		// The kept clone's HEAD names the default branch, which a job's
		// clone then has as origin/HEAD.
		if _, err := git(ctx, "", gd, "symbolic-ref", "HEAD", "refs/heads/"+src.Target); err != nil {
			return tips{}, err
		}
	}
	if have == nil || len(trusted)+len(forked) > 0 {
		var err error
		if have, err = listRefs(ctx, bare, src); err != nil {
			return tips{}, err
		}
	}
	if src.Sha == "" || src.Resume != "" {
		return tipsOf(have, src.head(), headBranch(bare))
	}
	has := func() bool {
		_, err := git(ctx, "", gd, "cat-file", "-e", src.Sha+"^{commit}")
		return err == nil
	}
	if !has() {
		from := src.Base
		if src.Fork != "" {
			from = src.Fork
		}
		if _, err := git(ctx, "", append(fetch, from, src.Sha)...); err != nil || !has() {
			return tips{}, permanent(fmt.Errorf("the commit %s is not in the repository's %s and could not be fetched by its id: %v", src.Sha, refOrDefault(src.Ref), err))
		}
	}
	t, err := tipsOf(have, "", headBranch(bare))
	t.sha = src.Sha
	return t, err
}

// headBranch returns the branch the HEAD of the bare repository bare
// names, or "" when it names none.
func headBranch(bare string) string {
	b, err := safefile.Read(filepath.Join(bare, "HEAD"), 4096)
	if err != nil {
		return ""
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return name
}

// refEntry is one ref of a kept clone as git for-each-ref gives it: its
// object, and for an annotated tag the object it tags.
type refEntry struct {
	name, sha, typ, peeled, peeledTyp string
}

// listRefs lists, in one git for-each-ref, the refs of the bare
// repository bare that src's job reads: its branches, and the fork's when
// the change is a fork's.
func listRefs(ctx context.Context, bare string, src source) ([]refEntry, error) {
	args := []string{"--git-dir=" + bare, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)", "--", "refs/heads/"}
	if src.Fork != "" {
		args = append(args, untrustedRefs+refKey(src.Fork)+"/heads/")
	}
	out, err := git(ctx, "", args...)
	if err != nil {
		return nil, fmt.Errorf("worker: read the kept clone's branches: %w", err)
	}
	var list []refEntry
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, "\x00"); len(f) == 5 {
			list = append(list, refEntry{name: f[0], sha: f[1], typ: f[2], peeled: f[3], peeledTyp: f[4]})
		}
	}
	return list, nil
}

// tipsOf returns, from list, the branches a job's clone gets (refs/heads/*),
// which of them hb (the kept clone's HEAD) names, and the commit of head
// (a full ref name) when it is not "": a commit, or an annotated tag of
// one, or an error.
func tipsOf(list []refEntry, head, hb string) (tips, error) {
	var t tips
	for _, e := range list {
		if e.name == head {
			switch {
			case e.typ == "commit":
				t.sha = e.sha
			case e.typ == "tag" && e.peeledTyp == "commit":
				t.sha = e.peeled
			}
		}
		if b, ok := strings.CutPrefix(e.name, "refs/heads/"); ok {
			t.branches = append(t.branches, ref{name: e.name, sha: e.sha})
			if b == hb {
				t.head = b
			}
		}
	}
	if head != "" && t.sha == "" {
		return tips{}, fmt.Errorf("worker: %s is not a commit of the kept clone", head)
	}
	return t, nil
}
