package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
	"github.com/salve-dev/salve/internal/agent/tools/rest"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

// mcpStarter starts one MCP server entry and returns its tools. It is the
// plug of part 2 (internal/agent/tools/mcp); opts.Expand resolves the
// protected env and headers placeholders from the merged environment.
type mcpStarter func(ctx context.Context, name string, entry json.RawMessage, opts mcp.Options) (tools.Provider, error)

// mcpStarters returns the MCP client of this build (internal/agent/tools/mcp).
func mcpStarters() mcpStarter { return mcp.StartEntry }

// tools resolves the tool names (docs/contracts/ai-agent-cli.md §11): MCP
// servers, REST tools and batch; anything else is exit 3. Queue bindings
// must name a queue (exit 4).
func (st *startup) tools(ctx context.Context, s *sessionSetup) error {
	queues, err := st.queues()
	if err != nil {
		return err
	}
	batch := false
	restSpecs := map[string]rest.Spec{}
	for _, name := range st.list("tools", st.fm.Tools) {
		switch {
		case name == "batch":
			batch = true
		case st.cfg.Has("restTools", name):
			if err := st.cfg.Check("restTools", name); err != nil {
				return err
			}
			var spec rest.Spec
			if err := st.cfg.Decode(&spec, "restTools", name); err != nil {
				return err
			}
			if err := checkQueue(queues, "restTools", name, spec.Queue); err != nil {
				return err
			}
			restSpecs[name] = spec
		case st.mcpEnabled(name):
			if err := st.startMCP(ctx, s, name, queues); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: tool %q is neither an MCP server, a REST tool nor batch", errInit, name)
		}
	}
	s.opts.Batch = s.opts.Batch && batch
	s.opts.Queuer = queue.Queuer{Set: queues}
	if len(restSpecs) > 0 {
		p, err := rest.New(restSpecs, nil)
		if err != nil {
			return fmt.Errorf("%w: %v", config.ErrConfig, err)
		}
		s.opts.Tools = append(s.opts.Tools, p)
		s.closers = append(s.closers, p)
	}
	if err := st.subAgents(s); err != nil {
		return err
	}
	return nil
}

func (st *startup) mcpEnabled(name string) bool {
	if !st.cfg.Has("mcpServers", name) {
		return false
	}
	enabled, ok := st.cfg.Raw("mcpServers", name, "enabled").(bool)
	return !ok || enabled
}

func (st *startup) startMCP(ctx context.Context, s *sessionSetup, name string, queues *queue.Set) error {
	if err := st.cfg.Check("mcpServers", name); err != nil {
		return err
	}
	q, _ := st.cfg.Raw("mcpServers", name, "queue").(string)
	if err := checkQueue(queues, "mcpServers", name, q); err != nil {
		return err
	}
	if st.dryRun {
		return nil
	}
	if p, ok := st.sharedMCP[name]; ok {
		s.opts.Tools = append(s.opts.Tools, p)
		s.addMCP(name, p)
		return nil
	}
	start := st.deps.mcp
	if start == nil {
		return fmt.Errorf("%w: MCP server %q: MCP servers are not available in this build", errInit, name)
	}
	entry, err := st.cfg.RawJSON("mcpServers", name)
	if err != nil {
		return err
	}
	opts := mcp.Options{Logger: st.log, Expand: mcp.Expander(st.cfg.Env)}
	if st.a.bools["trace-mcp"] {
		opts.Stderr = st.stderr // tee the servers' stderr to ours
	}
	if st.served != "" {
		// A headend's servers live as long as the process: keep them up.
		opts.Supervise, opts.OnState = true, st.deps.tel.mcpObserver(st.served)
	}
	p, err := start(ctx, name, entry, opts)
	if err != nil {
		if errors.Is(err, toolschema.ErrSchema) {
			return fmt.Errorf("MCP server %q: %w", name, err)
		}
		return fmt.Errorf("%w: MCP server %q: %w", errInit, name, err)
	}
	s.opts.Tools = append(s.opts.Tools, p)
	s.closers = append(s.closers, p)
	s.addMCP(name, p)
	return nil
}

// queues builds the queue set from queues.NAME.concurrent, with the default
// queue added when missing (docs/contracts/ai-agent-cli.md §9.7).
func (st *startup) queues() (*queue.Set, error) {
	cfg := map[string]int{}
	for _, q := range st.cfg.Keys("queues") {
		n, err := config.Int(st.cfg.Raw("queues", q, "concurrent"), 1)
		if err != nil {
			return nil, fmt.Errorf("%w: queues.%s.concurrent must be a positive integer", config.ErrConfig, q)
		}
		cfg[q] = n
	}
	set, err := queue.New(cfg, st.log)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	return set, nil
}

func checkQueue(queues *queue.Set, section, name, q string) error {
	if err := queues.Validate([]queue.Binding{{Owner: section + "." + name, Queue: q}}); err != nil {
		return fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	return nil
}
