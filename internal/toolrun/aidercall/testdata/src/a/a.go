package a

import (
	"context"
	"os"
	"os/exec"
	"syscall"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/sandbox"
	"github.com/salve-dev/salve/toolrun"
)

const tool = "aider"

const prefix = "ai"

func direct(ctx context.Context) {
	_ = exec.Command("aider", "--yes", "a.py")              // want `aider started with exec.Command outside github.com/salve-dev/salve/toolrun`
	_ = exec.CommandContext(ctx, tool, "--yes")             // want `aider started with exec.CommandContext`
	_ = exec.Command(prefix + "der")                        // want `aider started with exec.Command`
	_ = exec.Command("/usr/local/bin/aider")                // want `aider started with exec.Command`
	_ = exec.Command(toolrun.ToolAider)                     // want `aider started with exec.Command`
	_, _ = os.StartProcess("aider", []string{"aider"}, nil) // want `aider started with os.StartProcess`
	_ = syscall.Exec("/bin/aider", []string{"aider"}, nil)  // want `aider started with syscall.Exec`
	_ = sandbox.Run(ctx, sandbox.Cmd{Path: "aider"})        // want `aider started through a Cmd literal`
	_ = &exec.Cmd{Path: tool}                               // want `aider started through a Cmd literal`
	var c sandbox.Cmd
	c.Path = "aider" // want `aider set as a Cmd's Path`
	p := &exec.Cmd{}
	p.Path = tool                                                                      // want `aider set as a Cmd's Path`
	_ = exec.Command("sh", "-c", "aider --yes a.py")                                   // want `aider started through a shell with exec.Command`
	_ = exec.CommandContext(ctx, "/bin/bash", "-c", "cd src && AIDER_X=1 aider --yes") // want `aider started through a shell with exec.CommandContext`
	_ = sandbox.Run(ctx, sandbox.Cmd{Path: "sh", Args: []string{"-c", "exec aider"}})  // want `aider started through a shell in a Cmd literal`
}

func results() []contract.ToolRunResultV1 {
	r := contract.ToolRunResultV1{ToolID: "aider"} // want `contract.ToolRunResultV1 built outside`
	_ = &contract.ToolRunResultV1{}                // want `contract.ToolRunResultV1 built outside`
	return []contract.ToolRunResultV1{
		r,
		{ExitCode: 1}, // want `contract.ToolRunResultV1 built outside`
	}
}

// These are fine: other programs, values that are not constants, and
// results that come from the adapter or the contract package.
func fine(ctx context.Context, name string) {
	_ = exec.Command("git", "status")
	_ = exec.Command(name)
	_ = sandbox.Run(ctx, sandbox.Cmd{Path: "go", Args: []string{"aider"}})
	_ = exec.Command("aider-helper")
	_ = exec.Command("sh", "-c", "echo aider; aider-helper --x")
	_ = sandbox.Run(ctx, sandbox.Cmd{Path: "sh", Args: []string{"-c", "make aider"}})
	_ = sandbox.Run(ctx, sandbox.Cmd{Path: "go", Args: []string{"-c", "aider"}})
	_ = toolrun.RunAider(ctx)
	_ = contract.Rejected()
	var zero contract.ToolRunResultV1
	_ = zero
}
