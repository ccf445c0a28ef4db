package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
)

// Set is the started MCP servers of a session, as one tools.Provider. Close
// it when the session ends.
type Set struct {
	servers []*Server
	byTool  map[string]*Server
}

var _ tools.Provider = (*Set)(nil)

// StartAll starts every server concurrently (at most `parallel` at a time;
// zero or less means all at once). If any fails, the others are closed and
// the error of the first failing server, in cfgs order, is returned: a
// *[StartError] or a *toolschema.CompileError.
func StartAll(ctx context.Context, cfgs []ServerConfig, parallel int, opts Options) (*Set, error) {
	if parallel <= 0 {
		parallel = max(1, len(cfgs))
	}
	servers := make([]*Server, len(cfgs))
	errs := make([]error, len(cfgs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			servers[i], errs[i] = Start(ctx, cfg, opts)
		}()
	}
	wg.Wait()
	if err := firstErr(errs); err != nil {
		for _, s := range servers {
			if s != nil {
				_ = s.Close()
			}
		}
		return nil, err
	}
	set := &Set{servers: servers, byTool: map[string]*Server{}}
	for _, s := range servers {
		for _, t := range s.list {
			if _, dup := set.byTool[t.Name]; !dup {
				set.byTool[t.Name] = s
			}
		}
	}
	return set, nil
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Servers returns the started servers, in start order.
func (s *Set) Servers() []*Server { return append([]*Server(nil), s.servers...) }

// Tools implements tools.Provider: every server's tools, server by server.
func (s *Set) Tools() []tools.Tool {
	var out []tools.Tool
	for _, srv := range s.servers {
		out = append(out, srv.list...)
	}
	return out
}

// ValidateArgs checks a call's arguments; see [Server.ValidateArgs].
func (s *Set) ValidateArgs(name string, args json.RawMessage) error {
	srv, ok := s.byTool[name]
	if !ok {
		return fmt.Errorf("%w '%s'", ErrUnknownTool, name)
	}
	return srv.ValidateArgs(name, args)
}

// Call implements tools.Provider by routing to the tool's server.
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) (tools.Result, error) {
	srv, ok := s.byTool[name]
	if !ok {
		return tools.Result{}, fmt.Errorf("%w '%s'", ErrUnknownTool, name)
	}
	return srv.Call(ctx, name, args)
}

// Close closes every server concurrently and joins their errors.
func (s *Set) Close() error {
	errs := make([]error, len(s.servers))
	var wg sync.WaitGroup
	for i, srv := range s.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = srv.Close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// QueueBindings returns the queue binding of each configured server, for
// queue.Set.Validate at start-up (before any server is started).
func QueueBindings(cfgs []ServerConfig) []queue.Binding {
	out := make([]queue.Binding, 0, len(cfgs))
	for _, c := range cfgs {
		out = append(out, queue.Binding{Owner: "mcpServers." + c.Name, Queue: c.Queue})
	}
	return out
}
