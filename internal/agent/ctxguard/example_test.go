package ctxguard_test

import (
	"context"
	"fmt"

	"github.com/salve-dev/salve/internal/agent/ctxguard"
)

func ExampleGuard_ToolPreflight() {
	g, err := ctxguard.New(ctxguard.Options{Targets: []ctxguard.Target{
		{Provider: "local", Model: "qwen3", ContextWindow: 32768, BufferTokens: 1024, MaxOutputTokens: 4096},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	g.AddPending(20000) // the prompts
	fmt.Println("limit", g.Limit())
	fmt.Println(g.ToolPreflight(ctx, "fs__read_file", 5000).Commit)
	d := g.ToolPreflight(ctx, "fs__read_file", 5000)
	fmt.Println(d.Commit, d.Projected, d.Remaining, g.AllowTool("fs__read_file"))
	fmt.Println(g.TurnPreflight(ctx).ForceFinal)
	// Output:
	// limit 27648
	// true
	// false 30000 2648 false
	// true
}
