// Package othertool starts git and aider directly; TestOtherTool checks it
// with the analyzer's -tool flag set to git.
package othertool

import "os/exec"

func start() {
	_ = exec.Command("git", "status")  // want `git started with exec.Command`
	_ = exec.Command("aider", "--yes") // not the watched tool under -tool=git
}
