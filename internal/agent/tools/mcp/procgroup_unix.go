//go:build unix

package mcp

import (
	"errors"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, so that
// [child.killGroup] reaches everything the server starts.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup signals the child's process group.
func (c *child) killGroup(sig syscall.Signal) {
	if c.cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-c.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = c.cmd.Process.Signal(sig)
	}
}
