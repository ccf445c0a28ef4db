package mcp

import (
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// child is a started stdio server: its stdout (seen by the schema tap) and
// its stdin, as the SDK's IOTransport wants them. Closing the writer ends
// the child the way the MCP specification asks: stdin is closed, the child
// gets a grace period to exit, then SIGTERM and SIGKILL go to its whole
// process group (on Windows, a kill of the process alone: see
// procgroup_windows.go).
type child struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stdout    *tapReader
	terminate time.Duration

	waitDone chan struct{} // closed when cmd.Wait returned
	waitErr  error
	once     sync.Once
}

// startChild starts cmd with pipes on stdin and stdout.
func startChild(cmd *exec.Cmd, tap *schemaTap, terminate time.Duration) (*child, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, stdout: newTapReader(stdout, tap), terminate: terminate, waitDone: make(chan struct{})}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.waitDone)
	}()
	return c, nil
}

// reader is the child's stdout; closing it does nothing (the pipe closes
// when the child is reaped).
func (c *child) reader() io.ReadCloser { return io.NopCloser(c.stdout) }

// Write implements io.Writer (the child's stdin).
func (c *child) Write(p []byte) (int, error) { return c.stdin.Write(p) }

// Close stops the child (see [child]) and returns an error only when it
// would not die.
func (c *child) Close() error {
	var err error
	c.once.Do(func() { err = c.stop() })
	return err
}

func (c *child) stop() error {
	_ = c.stdin.Close()
	if c.waitFor(c.terminate) {
		c.killGroup(syscall.SIGKILL) // stragglers the child left behind
		return nil
	}
	c.killGroup(syscall.SIGTERM)
	if c.waitFor(c.terminate / 2) {
		c.killGroup(syscall.SIGKILL)
		return nil
	}
	c.killGroup(syscall.SIGKILL)
	if c.waitFor(5 * time.Second) {
		return nil
	}
	return fmt.Errorf("stdio server (pid %d) did not exit", c.cmd.Process.Pid)
}

// kill ends the whole group at once and reaps the child.
func (c *child) kill() {
	c.killGroup(syscall.SIGKILL)
	_ = c.stdin.Close()
	<-c.waitDone
}

func (c *child) waitFor(d time.Duration) bool {
	select {
	case <-c.waitDone:
		return true
	case <-time.After(d):
		return false
	}
}
