package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/agent/tools/openapi"
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
// servers, REST tools, OpenAPI documents ("openapi:NAME") and batch;
// anything else is exit 3. Queue bindings must name a queue (exit 4).
func (st *startup) tools(ctx context.Context, s *sessionSetup) error {
	queues, err := st.queues()
	if err != nil {
		return err
	}
	src, err := st.cfg.ToolSources(st.set.Tools)
	if err != nil {
		return err
	}
	restSpecs := map[string]rest.Spec{}
	for _, e := range src.REST {
		var spec rest.Spec
		if err := json.Unmarshal(e.JSON, &spec); err != nil {
			return fmt.Errorf("restTools.%s: %w: %v", e.Name, config.ErrConfig, err)
		}
		if err := checkQueue(queues, "restTools", e.Name, e.Queue); err != nil {
			return err
		}
		restSpecs[e.Name] = spec
	}
	if err := st.openAPITools(src.OpenAPI, restSpecs); err != nil {
		return err
	}
	for _, e := range src.MCP {
		if err := st.startMCP(ctx, s, e, queues); err != nil {
			return err
		}
	}
	s.opts.Batch = s.opts.Batch && src.Batch
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
	return st.orchestration(s)
}

// openAPITools imports the openapiSpecs entries the tools name
// ("openapi:NAME") into restSpecs; an operation left out is a warning.
func (st *startup) openAPITools(entries []config.ToolEntry, restSpecs map[string]rest.Spec) error {
	for _, e := range entries {
		var entry openapi.Entry
		if err := json.Unmarshal(e.JSON, &entry); err != nil {
			return fmt.Errorf("openapiSpecs.%s: %w: %v", e.Name, config.ErrConfig, err)
		}
		imp, err := openapi.Load(e.Name, entry)
		if err != nil {
			return fmt.Errorf("%w: %v", config.ErrConfig, err)
		}
		for _, sk := range imp.Skipped {
			st.log.Warn("OpenAPI operation left out", "spec", e.Name, "operation", sk.Operation, "reason", sk.Reason)
		}
		for name, spec := range imp.Tools {
			if _, dup := restSpecs[name]; dup {
				return fmt.Errorf("%w: openapiSpecs.%s: its tool %s is also a restTools entry", config.ErrConfig, e.Name, name)
			}
			restSpecs[name] = spec
		}
	}
	return nil
}

// startMCP starts one MCP server of the session, or shares its parent's.
func (st *startup) startMCP(ctx context.Context, s *sessionSetup, e config.ToolEntry, queues *queue.Set) error {
	if err := checkQueue(queues, "mcpServers", e.Name, e.Queue); err != nil {
		return err
	}
	if st.dryRun {
		return nil
	}
	if p, ok := st.sharedMCP[e.Name]; ok {
		s.opts.Tools = append(s.opts.Tools, p)
		s.addMCP(e.Name, p)
		return nil
	}
	start := st.deps.mcp
	if start == nil {
		return fmt.Errorf("%w: MCP server %q: MCP servers are not available in this build", errInit, e.Name)
	}
	opts := mcp.Options{Logger: st.log, Expand: mcp.Expander(st.cfg.Env)}
	if st.a.bools["trace-mcp"] {
		opts.Stderr = st.stderr // tee the servers' stderr to ours
	}
	if st.served != "" {
		// A headend's servers live as long as the process: keep them up.
		opts.Supervise, opts.OnState = true, st.deps.tel.mcpObserver(st.served)
	}
	p, err := start(ctx, e.Name, e.JSON, opts)
	if err != nil {
		if errors.Is(err, toolschema.ErrSchema) {
			return fmt.Errorf("MCP server %q: %w", e.Name, err)
		}
		return fmt.Errorf("%w: MCP server %q: %w", errInit, e.Name, err)
	}
	s.opts.Tools = append(s.opts.Tools, p)
	s.closers = append(s.closers, p)
	s.addMCP(e.Name, p)
	return nil
}

// queues builds the queue set from queues.NAME.concurrent, with the default
// queue added when missing (docs/contracts/ai-agent-cli.md §9.7).
func (st *startup) queues() (*queue.Set, error) {
	cfg, err := st.cfg.Queues()
	if err != nil {
		return nil, err
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
