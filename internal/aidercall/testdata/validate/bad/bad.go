// Package bad breaks the aider contract against salve's real packages.
package bad

import (
	"context"
	"os/exec"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/toolrun"
)

// Edit runs aider itself.
func Edit(ctx context.Context) contract.ToolRunResultV1 {
	_, _ = sandbox.Run(ctx, sandbox.Cmd{Path: toolrun.ToolAider})
	if err := exec.CommandContext(ctx, "aider", "--yes").Run(); err != nil {
		return contract.ToolRunResultV1{ToolID: "aider", ExitCode: 1}
	}
	return contract.ToolRunResultV1{ToolID: "aider"}
}
