package worker

// Kept clones. The worker keeps one bare clone of each repository it heals,
// in salve's data folder, and fetches each job's branches into it instead
// of cloning the repository again. A job then heals in a clone of its own,
// made from the kept one with git clone --shared --no-checkout: the job's
// clone borrows the kept clone's objects and copies only its refs, and the
// heal makes its worktree from it as salve heal does from a checkout.
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
// job takes the first free one, so the jobs of a repository make their
// clone and heal worktree at the same paths from one job to the next,
// where the toolchains' caches that are keyed by path (Go's compile of the
// main module and go test's results, cargo's fingerprints) hit as they do
// on a CI runner that builds in the same folder each time.
//
// Concurrency: a kept clone's folder holds two lock files. Every job using
// it holds executor.LockFile shared until its heal ends (its clone reads
// the kept objects), so a trim (executor.TrimCaches) never removes it under
// a job. Fetching into it and cloning from it happen under fetch.lock,
// exclusive, so two jobs never fetch at once. Objects are only ever added
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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/executor"
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
	fl, err := os.OpenFile(filepath.Join(kept, fetchLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("worker: kept clone: %w", err)
	}
	defer fl.Close() // releases the fetch lock
	if err := flockCtx(ctx, fl, syscall.LOCK_EX); err != nil {
		return nil, fmt.Errorf("worker: kept clone: %w", err)
	}
	bare := filepath.Join(kept, keptGit)
	how := HowFetch
	if !isBare(bare) {
		how = HowClone
	}
	sha, err := fill(ctx, bare, src)
	var f *failure
	if err != nil && ctx.Err() == nil && !(errors.As(err, &f) && f.permanent) {
		// Clone it again, but only when no other job borrows its objects:
		// taking the lock exclusively says so (on Linux a failed attempt
		// also drops the shared hold).
		if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			log.Warn("fetching into the kept clone failed and other jobs use it; cloning for this job alone", "error", err)
			_ = lock.Close()
			return nil, errKeptBusy
		}
		log.Warn("fetching into the kept clone failed; cloning it again", "error", err)
		how = HowClone
		if err = os.RemoveAll(bare); err == nil {
			sha, err = fill(ctx, bare, src)
		}
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_SH) // converts: nobody else holds it
	}
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(slot, jobClone)
	if err := makeJobClone(ctx, bare, dir, src, sha); err != nil {
		return nil, err
	}
	return &checkout{Dir: dir, How: how, release: func() { freeSlot(); _ = lock.Close() }}, nil
}

// private makes the job's clone at tmp/repo from a clone of its own in
// tmp, removed with tmp.
func private(ctx context.Context, tmp string, src source) (*checkout, error) {
	bare := filepath.Join(tmp, "clone.git")
	sha, err := fill(ctx, bare, src)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, jobClone)
	if err := makeJobClone(ctx, bare, dir, src, sha); err != nil {
		return nil, err
	}
	return &checkout{Dir: dir, How: HowPrivate, release: func() {}}, nil
}

// takeSlot takes the first free job folder of the kept clone's folder
// kept (its lock, exclusive), emptied of what an earlier job left there.
// free empties it again and lets it go.
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
		if err := heal.RemoveAllForce(dir); err != nil {
			_ = f.Close()
			return "", nil, err
		}
		if err := os.Mkdir(dir, 0o700); err != nil {
			_ = f.Close()
			return "", nil, err
		}
		return dir, func() { _ = heal.RemoveAllForce(dir); _ = f.Close() }, nil
	}
	return "", nil, fmt.Errorf("all %d job folders of %s are taken", maxSlots, kept)
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
// it is not one) and returns the commit to heal. Every git command names
// bare as its git directory, so a broken one is never taken for a
// repository around it. A failed fetch is never permanent: the remote
// answered ls-remote just before, so the fault may be the kept clone's.
func fill(ctx context.Context, bare string, src source) (string, error) {
	if !isBare(bare) {
		if err := os.RemoveAll(bare); err != nil {
			return "", fmt.Errorf("worker: kept clone: %w", err)
		}
		if _, err := git(ctx, "", "init", "--quiet", "--bare", "--template=", "--", bare); err != nil {
			return "", fmt.Errorf("worker: kept clone: %w", err)
		}
	}
	gd := "--git-dir=" + bare
	var trusted, forked []string
	add := func(list []string, branch string, fork bool) []string {
		spec := "+refs/heads/" + branch + ":" + src.dst(branch, fork)
		for _, s := range list {
			if s == spec {
				return list
			}
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
			return "", fmt.Errorf("fetch %s: %w", src.Base, err)
		}
	}
	if len(forked) > 0 {
		if _, err := git(ctx, "", append(append(fetch, src.Fork), forked...)...); err != nil {
			return "", fmt.Errorf("fetch %s: %w", src.Fork, err)
		}
	}
	if src.Target != "" {
		// The kept clone's HEAD names the default branch, which a job's
		// clone then has as origin/HEAD.
		if _, err := git(ctx, "", gd, "symbolic-ref", "HEAD", "refs/heads/"+src.Target); err != nil {
			return "", err
		}
	}
	if src.Sha == "" || src.Resume != "" {
		sha, err := git(ctx, "", gd, "rev-parse", "--verify", "--quiet", "--end-of-options", src.head()+"^{commit}")
		if err != nil {
			return "", fmt.Errorf("worker: %s is not in the kept clone: %w", src.head(), err)
		}
		return strings.TrimSpace(sha), nil
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
			return "", permanent(fmt.Errorf("the commit %s is not in the repository's %s and could not be fetched by its id: %v", src.Sha, refOrDefault(src.Ref), err))
		}
	}
	return src.Sha, nil
}

// makeJobClone makes the job's clone at dir from the bare repository bare: it
// borrows bare's objects and has bare's branches (the repository's own,
// never a fork's) as origin's, with origin fetching from src.Base and
// pushing to the job's repository; it is at sha, on src.Local or detached,
// with nothing checked out (the heal makes its own worktree).
func makeJobClone(ctx context.Context, bare, dir string, src source, sha string) error {
	if _, err := git(ctx, "", "clone", "--quiet", "--shared", "--no-checkout", "--no-tags", "--", bare, dir); err != nil {
		return fmt.Errorf("worker: clone the kept clone: %w", err)
	}
	gd := "--git-dir=" + filepath.Join(dir, ".git")
	steps := [][]string{{gd, "config", "remote.origin.url", src.Base}}
	if src.Fork != "" {
		steps = append(steps, []string{gd, "config", "remote.origin.pushurl", src.Fork})
	}
	if src.Local != "" {
		steps = append(steps, []string{gd, "update-ref", "refs/heads/" + src.Local, sha},
			[]string{gd, "symbolic-ref", "HEAD", "refs/heads/" + src.Local})
	} else {
		steps = append(steps, []string{gd, "update-ref", "--no-deref", "HEAD", sha})
	}
	for _, args := range steps {
		if _, err := git(ctx, "", args...); err != nil {
			return fmt.Errorf("worker: set up the job's clone: %w", err)
		}
	}
	return nil
}
