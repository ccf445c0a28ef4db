// Package sandbox runs child processes for salve. It is the one place where
// salve starts a program: every subprocess gets its own process group, a
// timeout that kills the whole group (grandchildren too), a bounded wait for
// pipes held open by stragglers, output capped in memory to its head and
// tail, and no standard input unless one is given.
//
// On Windows, where salve itself is not offered but ai-agent and git_agent
// are, there are no process groups: a timeout or the end of the run kills
// the process alone, and a grandchild it started may survive it (see
// procgroup_windows.go). The bwrap backend and PID namespaces need Linux
// (see reap.go).
//
// It does not use a shell; callers that need one say so by running "sh -c"
// themselves. [Run] returns an error only when the program could not be
// started; a non-zero exit status, a signal or a timeout are reported in the
// [Result].
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// DefaultWaitDelay bounds how long [Run] waits for output pipes to close
// after the process exits or is killed.
const DefaultWaitDelay = 2 * time.Second

// ErrNotFound is returned (wrapped) by [Run] when the program does not exist
// or is not in PATH.
var ErrNotFound = errors.New("sandbox: executable not found")

// Cmd describes one program to run. The zero values are safe: no timeout,
// no environment, no input, [DefaultMaxOutput] per stream.
type Cmd struct {
	// Path is the program. A name without a slash is looked up in PATH.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Dir is the working directory; empty means the caller's.
	Dir string
	// Env is the whole environment of the child, as KEY=VALUE. Nil means an
	// empty environment, never the parent's: callers pass what they mean.
	Env []string
	// Stdin is the child's standard input; nil means none (/dev/null).
	Stdin io.Reader
	// Timeout kills the process group when it elapses; zero means none.
	Timeout time.Duration
	// MaxOutput caps the bytes kept in memory per stream; zero means
	// [DefaultMaxOutput].
	MaxOutput int
	// Stdout and Stderr, when set, also receive the streams as they are
	// written (for live display or a full log file), uncapped.
	Stdout, Stderr io.Writer
	// Combined sends stderr into the stdout capture too, so Result.Stdout
	// holds both streams in the order written and Result.Stderr is empty.
	Combined bool
	// KeepGroup leaves the process group alone after a normal exit. By
	// default any process left in the group is killed, so nothing outlives
	// the run.
	KeepGroup bool
	// Mask, when set, masks secrets in the output before anything sees it:
	// the captures and the Stdout and Stderr writers get the masked text.
	Mask *Masker
	// Setup, when set, may adjust the exec.Cmd before it starts (for
	// example to add SysProcAttr fields). It must not replace the
	// process-group settings.
	Setup func(*exec.Cmd)
	// Files are open files the child gets as descriptors 3, 4 and on.
	// Run closes them, whether the child started or not.
	Files []*os.File
}

// Result is the outcome of a process that started.
type Result struct {
	// ExitCode is the exit status, or -1 when the process died by a signal
	// (including the kill of a timeout).
	ExitCode int
	// Signal names the signal that ended the process, if any.
	Signal string
	// TimedOut is true when the timeout killed the process group.
	TimedOut bool
	// Stdout and Stderr hold the captured output, capped to head and tail.
	Stdout, Stderr []byte
	// StdoutBytes and StderrBytes count all bytes written, kept or not.
	StdoutBytes, StderrBytes int64
	// Truncated is true when either capture dropped bytes.
	Truncated bool
	Started   time.Time
	Duration  time.Duration
}

// Run starts c, waits for it and returns its result. The error is non-nil
// only when the process could not be started (wrapping [ErrNotFound] when the
// program is missing) or ctx was already done; a process that ran and failed
// is not an error. Cancelling ctx kills the process group like a timeout but
// leaves TimedOut false.
func Run(ctx context.Context, c Cmd) (Result, error) {
	defer func() {
		for _, f := range c.Files {
			_ = f.Close()
		}
	}()
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("sandbox: run %s: %w", c.Path, err)
	}
	runCtx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(runCtx, c.Path, c.Args...)
	if errors.Is(cmd.Err, exec.ErrNotFound) || errors.Is(cmd.Err, exec.ErrDot) {
		return Result{}, fmt.Errorf("sandbox: run %s: %w: %w", c.Path, ErrNotFound, cmd.Err)
	}
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = c.Stdin
	cmd.ExtraFiles = c.Files
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = DefaultWaitDelay

	outCap, errCap := NewCapture(c.MaxOutput), NewCapture(c.MaxOutput)
	cmd.Stdout = tee(outCap, c.Stdout)
	cmd.Stderr = tee(errCap, c.Stderr)
	var masks []io.Closer
	if !c.Mask.Empty() {
		mo, me := c.Mask.Writer(cmd.Stdout), c.Mask.Writer(cmd.Stderr)
		cmd.Stdout, cmd.Stderr, masks = mo, me, []io.Closer{mo, me}
	}
	if c.Combined {
		// One writer for both streams: os/exec then gives the child one
		// pipe, so the order of writes is kept, and a Stdout tee sees both.
		cmd.Stderr = cmd.Stdout
	}
	if c.Setup != nil {
		c.Setup(cmd)
	}

	res := Result{Started: time.Now()}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || isNotExist(err) {
			return Result{}, fmt.Errorf("sandbox: start %s: %w: %w", c.Path, ErrNotFound, err)
		}
		return Result{}, fmt.Errorf("sandbox: start %s: %w", c.Path, err)
	}
	waitErr := cmd.Wait()
	res.Duration = time.Since(res.Started)
	for _, m := range masks {
		_ = m.Close() // the copying goroutines are done: flush held-back tails
	}
	if !c.KeepGroup {
		_ = killGroup(cmd)
	}
	res.TimedOut = c.Timeout > 0 && errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	res.ExitCode, res.Signal = exitStatus(cmd, waitErr)
	res.Stdout, res.Stderr = outCap.Bytes(), errCap.Bytes()
	res.StdoutBytes, res.StderrBytes = outCap.Total(), errCap.Total()
	res.Truncated = outCap.Truncated() || errCap.Truncated()
	return res, nil
}

func tee(capture io.Writer, extra io.Writer) io.Writer {
	if extra == nil {
		return capture
	}
	return io.MultiWriter(capture, extra)
}

func exitStatus(cmd *exec.Cmd, waitErr error) (int, string) {
	ps := cmd.ProcessState
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	if code := ps.ExitCode(); code >= 0 {
		return code, ""
	}
	_ = waitErr
	return -1, ""
}

func isNotExist(err error) bool {
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) {
		return errors.Is(err, syscall.ENOENT)
	}
	return false
}
