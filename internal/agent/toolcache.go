package agent

import (
	"context"
	"encoding/json"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// ToolCache reuses the outputs of MCP and REST tools (docs/ai-agent.md,
// "Caching"). Lookup runs after the tool's queue admitted the call and
// before the provider is called; Store runs after a successful call that
// was not a hit. The output is stored before the size cap, which applies
// afresh on a hit.
type ToolCache interface {
	Lookup(ctx context.Context, t tools.Tool, args json.RawMessage) (out string, ok bool)
	Store(ctx context.Context, t tools.Tool, args json.RawMessage, out string)
}

// cacheable reports whether a tool's outputs may be cached: MCP and REST
// tools only, never sub-agents or internal tools.
func (s *session) cacheable(spec *toolSpec) bool {
	return s.opts.ToolCache != nil && !spec.internal && (spec.Kind == tools.KindMCP || spec.Kind == tools.KindREST)
}

// callCached is callWithTimeout behind the tool cache.
func (s *session) callCached(ctx context.Context, spec *toolSpec, args json.RawMessage, source string) (string, error) {
	if !s.cacheable(spec) {
		return s.callWithTimeout(ctx, spec, args, source)
	}
	if out, ok := s.opts.ToolCache.Lookup(ctx, spec.Tool, args); ok {
		return out, nil
	}
	out, err := s.callWithTimeout(ctx, spec, args, source)
	if err == nil {
		s.opts.ToolCache.Store(ctx, spec.Tool, args, out)
	}
	return out, err
}
