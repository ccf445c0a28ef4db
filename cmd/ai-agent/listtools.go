package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
)

// listTools implements --list-tools (docs/contracts/ai-agent-cli.md §2): it
// resolves the config (the prompt layer only when a <system> file is given),
// starts each named MCP server in turn, prints its tools and stops it.
func listTools(ctx context.Context, d deps, a *cliArgs, stdout, stderr io.Writer, log *slog.Logger) int {
	if len(a.positionals) > 1 {
		fmt.Fprintf(stderr, "ai-agent: --list-tools takes at most <system>\n")
		return exitConfig
	}
	st := &startup{deps: d, a: a, log: log, stderr: stderr, fm: &config.Frontmatter{Settings: map[string]any{}}}
	if len(a.positionals) == 1 {
		st.sys, _ = resolvePrompt(a.positionals[0], func() (string, error) { return "", nil })
	}
	st.cwd, _ = os.Getwd()
	cfgs, err := st.listConfigs()
	if err == nil {
		err = mcp.ListTools(ctx, stdout, cfgs, a.values["schema-validate"], mcp.Options{Logger: log, Expand: mcp.Expander(st.cfg.Env)})
	}
	if err != nil {
		fmt.Fprintf(stderr, "ai-agent: %v\n", err)
		return exitCode(err)
	}
	return exitOK
}

// listConfigs resolves the server names of --list-tools into their configs.
func (st *startup) listConfigs() ([]mcp.ServerConfig, error) {
	if err := st.loadConfig(); err != nil {
		return nil, err
	}
	names := config.SplitList(st.a.values["list-tools"])
	if len(names) == 1 && names[0] == "all" {
		names = st.cfg.MCPServers()
	}
	var cfgs []mcp.ServerConfig
	for _, n := range names {
		if !st.cfg.MCPEnabled(n) {
			return nil, fmt.Errorf("%w: %w: %q", errInit, mcp.ErrUnknownServer, n)
		}
		raw, err := st.cfg.RawJSON("mcpServers", n)
		if err != nil {
			return nil, err
		}
		cfg, _, err := mcp.DecodeEntry(n, raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errInit, err)
		}
		cfgs = append(cfgs, cfg)
	}
	if len(cfgs) == 0 {
		return nil, fmt.Errorf("%w: no MCP server to list", config.ErrConfig)
	}
	return cfgs, nil
}
