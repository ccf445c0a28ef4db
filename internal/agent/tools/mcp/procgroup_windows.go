package mcp

import (
	"os/exec"
	"syscall"
)

// On Windows a stdio server gets no process group (that would take a job
// object): closing it kills the server process alone, and a process it
// started may outlive it. There is no SIGTERM either, so the grace period
// after stdin closes ends in a kill.

// ownGroup leaves cmd as it is: there are no process groups here.
func ownGroup(*exec.Cmd) {}

// killGroup kills the server process on SIGKILL; other signals cannot be
// delivered here and do nothing.
func (c *child) killGroup(sig syscall.Signal) {
	if c.cmd.Process == nil || sig != syscall.SIGKILL {
		return
	}
	_ = c.cmd.Process.Kill()
}
