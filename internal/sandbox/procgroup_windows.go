package sandbox

import (
	"errors"
	"os"
	"os/exec"
)

// On Windows a child gets no group of its own: grouping its descendants
// would take a job object, which salve does not create. A timeout, a
// cancel or the end of a run kills the process alone; a grandchild it
// started (a build tool's worker, a daemon) is not killed with it and may
// survive the run, holding its output pipes open for at most
// [DefaultWaitDelay]. Salve is not offered on Windows; ai-agent and
// git_agent, which are, start short-lived tools through [Run].

// ownGroup leaves cmd as it is: there are no process groups here.
func ownGroup(*exec.Cmd) {}

// killGroup kills the process of cmd (not its descendants), unless it has
// already been waited for.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return nil
	}
	err := cmd.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
