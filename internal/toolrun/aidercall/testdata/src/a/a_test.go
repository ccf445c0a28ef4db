package a

import (
	"os/exec"

	"github.com/salve-dev/salve/contract"
)

// Tests build fixtures; nothing here is reported.
func fixture() contract.ToolRunResultV1 {
	_ = exec.Command("aider")
	return contract.ToolRunResultV1{ExitCode: 0}
}
