package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"
)

// Isolation backend names, as given to [NewBackend] and recorded in
// contract.EnvironmentMetadata.Isolation.
const (
	IsolationAuto   = "auto"
	IsolationNone   = "none"
	IsolationBwrap  = "bwrap"
	IsolationDocker = "docker"
	IsolationPodman = "podman"
)

// ErrUnknownBackend is returned (wrapped) by [NewBackend] and
// [SelectBackend] for a name that is not one of the isolation names.
var ErrUnknownBackend = errors.New("sandbox: unknown isolation backend")

// ErrBackendUnavailable is returned (wrapped) by a [Backend]'s Probe, and by
// [SelectBackend], when the backend cannot run jobs on this machine.
var ErrBackendUnavailable = errors.New("sandbox: isolation backend unavailable")

// ErrCleanup is returned (wrapped) by [RunJob] when the job ran but the
// backend's Cleanup failed; the Result is then complete and valid.
var ErrCleanup = errors.New("sandbox: cleanup after the job failed")

// DefaultProbeTimeout bounds a backend's Probe.
const DefaultProbeTimeout = 10 * time.Second

// Job is one shell command line to run in a workspace under a [Backend].
// The zero values are safe except Workspace and Script, which are required.
type Job struct {
	// Workspace is the absolute host path of the project. It is the working
	// directory of the script, and the only host directory the script may
	// write (besides CacheDir).
	Workspace string
	// Script is the shell command line, run by "sh -c".
	Script string
	// Env is the environment of the script, as KEY=VALUE. Nil means empty.
	// Container backends pass on only the variables that make sense inside
	// an image (see [ContainerEnv]).
	Env []string
	// Image is the container image; container backends require it.
	Image string
	// Name names the container, so that it can be removed after a timeout.
	// Empty means the backend picks a unique one.
	Name string
	// CacheDir is a writable host directory for tool caches (Go build
	// cache, npm cache, XDG cache). The bwrap backend binds it writable and
	// points the tools at it; empty means no cache (a private /tmp is used).
	CacheDir string
	// Caches are the user's caches the job may read but never change (see
	// [UserCaches]). The bwrap backend mounts each as an overlay whose
	// writes are thrown away after the run, or, where overlays are
	// unavailable, binds read-only those a tool can use read-only; container
	// backends mount those read-only.
	Caches []Cache
	// TmpSize caps the size of each private tmpfs (bwrap's /tmp and
	// /var/tmp); zero means [DefaultTmpSize].
	TmpSize int64
	// Timeout kills the job when it elapses; zero means none.
	Timeout time.Duration
	// MaxOutput caps the combined output kept in memory; zero means
	// [DefaultMaxOutput].
	MaxOutput int
	// Output, when set, receives the combined output as it is written,
	// uncapped (a log file, a terminal).
	Output io.Writer
	// Mask, when set, masks secrets in the output before it reaches the
	// capture or Output.
	Mask *Masker
	// Kept are host directories inside CacheDir that the job sees at
	// their own path and that outlive it: a tool's work files that a
	// later job of the same caller reads (the test binaries go test
	// -work keeps). A directory that is not inside CacheDir, not
	// absolute or not an existing directory is not mounted. The bwrap
	// backend binds them; container backends do not mount them; without
	// a sandbox the job sees the host anyway.
	Kept []KeptDir
}

// KeptDir is a directory of [Job.Kept].
type KeptDir struct {
	// Path is the absolute host path, inside the job's CacheDir.
	Path string
	// Writable lets the job write it; otherwise it is mounted read-only.
	Writable bool
}

// Backend turns a [Job] into a [Cmd] run by [Run], with some degree of
// isolation. Implementations: [None], [Bwrap] and [Container].
type Backend interface {
	// Name is the isolation name recorded for runs ("none", "bwrap", …).
	Name() string
	// Probe checks that the backend really runs jobs here (the engine
	// answers, the namespaces can be created). image is the image a
	// container backend would use; an error wraps [ErrBackendUnavailable].
	Probe(ctx context.Context, image string) error
	// Command builds the Cmd that runs job.
	Command(job Job) (Cmd, error)
	// Cleanup releases what a run of job may have left behind (a container
	// whose client was killed). It is called after every run.
	Cleanup(ctx context.Context, job Job) error
}

// NewBackend returns the backend called name, with its program looked up in
// PATH when it runs. It does not probe it. "auto" is not a backend; see
// [SelectBackend].
func NewBackend(name string) (Backend, error) {
	switch name {
	case IsolationNone:
		return None{}, nil
	case IsolationBwrap:
		return Bwrap{}, nil
	case IsolationDocker, IsolationPodman:
		return Container{Engine: name}, nil
	}
	return nil, fmt.Errorf("sandbox: backend %q: %w", name, ErrUnknownBackend)
}

// AutoOrder lists the backends "auto" tries, strongest first. bwrap needs
// Linux: elsewhere (macOS) its probe fails at once, without starting
// anything, so auto picks docker or podman when the engine answers and the
// image is present, and otherwise none, which is no isolation at all (see
// docs/executor.md).
var AutoOrder = []string{IsolationDocker, IsolationPodman, IsolationBwrap, IsolationNone}

// SelectBackend returns the backend called name after probing that it
// works, with its optional features detected (see [Bwrap.Detect]). For "auto" (or "") it returns the first backend of [AutoOrder] whose
// probe succeeds, probing them all at once; container backends count only when image is already
// present, so that auto never starts a pull. The error wraps
// [ErrUnknownBackend] or [ErrBackendUnavailable].
func SelectBackend(ctx context.Context, name, image string) (Backend, error) {
	if name != "" && name != IsolationAuto {
		b, err := NewBackend(name)
		if err != nil {
			return nil, err
		}
		return probeAndDetect(ctx, b, "")
	}
	// The candidates are probed at once (an engine that does not answer
	// takes a quarter of a second to say so, a bwrap probe two sandbox
	// starts) and the first of AutoOrder that works wins; returning cancels
	// the probes still running.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type probed struct {
		b   Backend
		err error
	}
	var results []chan probed
	for _, n := range AutoOrder {
		b, _ := NewBackend(n)
		img := image
		if _, ok := b.(Container); ok && img == "" {
			continue
		}
		ch := make(chan probed, 1)
		results = append(results, ch)
		go func() {
			b, err := probeAndDetect(ctx, b, img)
			ch <- probed{b, err}
		}()
	}
	var errs []error
	for _, ch := range results {
		p := <-ch
		if p.err == nil {
			return p.b, nil
		}
		errs = append(errs, p.err)
	}
	return nil, fmt.Errorf("sandbox: auto: %w", errors.Join(errs...))
}

// probeAndDetect probes b and fills in its optional features: a bwrap's
// features are detected first, and a working overlay proves the sandbox
// works.
func probeAndDetect(ctx context.Context, b Backend, image string) (Backend, error) {
	bw, ok := b.(Bwrap)
	if !ok {
		if err := b.Probe(ctx, image); err != nil {
			return nil, err
		}
		return b, nil
	}
	if err := bwrapSystem(runtime.GOOS); err != nil {
		return nil, err
	}
	// The overlay probe starts a sandbox as a build's is started (the same
	// isolation, the capabilities dropped, an overlay mounted, a file
	// written): when it works, bwrap works, and the plain probe, a second
	// sandbox start, is not needed. Only without overlays is it run.
	d := bw.Detect(ctx)
	if d.Features.Overlay {
		return d, nil
	}
	if err := b.Probe(ctx, image); err != nil {
		return nil, err
	}
	if d.Features.File && d.probeJob(ctx) != nil {
		d.Features.File = false // bind /etc's files, as without --file
	}
	return d, nil
}

// bwrapSystem returns an error wrapping [ErrBackendUnavailable] when goos
// is not Linux: bubblewrap is built on Linux namespaces and exists nowhere
// else.
func bwrapSystem(goos string) error {
	if goos != "linux" {
		return fmt.Errorf("sandbox: bwrap: %w: bubblewrap needs Linux namespaces, not %s", ErrBackendUnavailable, goos)
	}
	return nil
}

// RunJob runs job under b: it names the job when it has no name, builds the
// command, runs it with [Run] (combined output, group kill on timeout) and
// always calls b.Cleanup, even when ctx is done. The error is non-nil when
// the job could not start, or wraps [ErrCleanup] (with a valid Result) when
// only the cleanup failed.
func RunJob(ctx context.Context, b Backend, job Job) (Result, error) {
	if job.Name == "" {
		job.Name = ContainerName()
	}
	c, err := b.Command(job)
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %s: build command: %w", b.Name(), err)
	}
	res, runErr := Run(ctx, c)
	cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultProbeTimeout)
	defer cancel()
	cleanErr := b.Cleanup(cleanCtx, job)
	if runErr != nil {
		return res, fmt.Errorf("sandbox: %s: %w", b.Name(), runErr)
	}
	if cleanErr != nil {
		return res, fmt.Errorf("sandbox: %s: %w: %w", b.Name(), ErrCleanup, cleanErr)
	}
	return res, nil
}

// baseCmd fills the fields every backend shares. Its Setup gives the child
// one pipe for both stdout and stderr, so the capture and job.Output see
// the two streams interleaved exactly as written.
func baseCmd(job Job, path string, args []string, env []string) Cmd {
	return Cmd{
		Path:      path,
		Args:      args,
		Dir:       job.Workspace,
		Env:       env,
		Timeout:   job.Timeout,
		MaxOutput: job.MaxOutput,
		Stdout:    job.Output,
		Combined:  true,
		Mask:      job.Mask,
		Setup:     sharePipe,
	}
}

// sharePipe makes stderr the very writer stdout is, which os/exec serves
// with a single pipe (it compares the two with ==).
func sharePipe(cmd *exec.Cmd) { cmd.Stderr = cmd.Stdout }

func checkJob(job Job) error {
	if job.Workspace == "" || job.Workspace[0] != '/' {
		return fmt.Errorf("workspace %q is not an absolute path", job.Workspace)
	}
	if job.Script == "" {
		return errors.New("empty script")
	}
	return nil
}

// None runs the script as a plain child process: its own process group and
// the scrubbed environment, but the whole host filesystem and network.
type None struct{}

var _ Backend = None{}

// Name returns "none".
func (None) Name() string { return IsolationNone }

// Probe checks that sh can be found.
func (None) Probe(ctx context.Context, _ string) error {
	res, err := Run(ctx, Cmd{Path: "sh", Args: []string{"-c", "exit 0"}, Timeout: DefaultProbeTimeout})
	if err != nil || res.ExitCode != 0 {
		return fmt.Errorf("sandbox: none: sh: %w (exit %d, %v)", ErrBackendUnavailable, res.ExitCode, err)
	}
	return nil
}

// Command runs "sh -c SCRIPT" in the workspace. What the job shares into
// the workspace from elsewhere (a heal worktree's node_modules or target/
// from the checkout it was made from, see [UserCaches]), which a sandbox
// would mount there, is linked there instead, unless the workspace has
// its own; [None.Cleanup] removes the link.
func (None) Command(job Job) (Cmd, error) {
	if err := checkJob(job); err != nil {
		return Cmd{}, err
	}
	for _, c := range sharedIn(job) {
		if _, err := os.Lstat(c.Dst); err == nil {
			continue
		}
		if err := os.Symlink(c.Src, c.Dst); err != nil {
			return Cmd{}, fmt.Errorf("share %s into the workspace: %w", c.Name, err)
		}
	}
	return baseCmd(job, "sh", []string{"-c", job.Script}, job.Env), nil
}

// Cleanup removes the links [None.Command] made ([Run] already killed the
// process group): a link the build replaced is left as it is.
func (None) Cleanup(_ context.Context, job Job) error {
	var errs []error
	for _, c := range sharedIn(job) {
		if to, err := os.Readlink(c.Dst); err == nil && to == c.Src {
			if err := os.Remove(c.Dst); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// sharedIn returns the caches of job that belong at a path directly inside
// its workspace other than their own, with both paths cleaned.
func sharedIn(job Job) []Cache {
	ws := cleanAbs(job.Workspace)
	var out []Cache
	for _, c := range job.Caches {
		src, dst := cleanAbs(c.Src), cleanAbs(c.Dst)
		if src == "" || dst == "" || src == dst || ws == "" || filepath.Dir(dst) != ws {
			continue
		}
		c.Src, c.Dst = src, dst
		out = append(out, c)
	}
	return out
}
