// Package toolrun is the adapter: everything is allowed here.
package toolrun

import (
	"context"
	"os/exec"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

const ToolAider = "aider"

func RunAider(ctx context.Context) contract.ToolRunResultV1 {
	_ = sandbox.Run(ctx, sandbox.Cmd{Path: ToolAider})
	_ = exec.Command("aider")
	return contract.ToolRunResultV1{ToolID: ToolAider}
}
