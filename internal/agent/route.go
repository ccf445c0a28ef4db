package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// ToolRouterHandoff is the router's tool (docs/ai-agent.md, "Advisors,
// router and handoff"): offered when Options.Routes names destinations.
const ToolRouterHandoff = "router__handoff-to"

// Route is the destination a router session chose with
// router__handoff-to: the destination agent's name and the router's
// optional note for it.
type Route struct {
	Agent   string
	Message string
}

// routeState is the choice of a router session; the calls of one turn
// run at once, so it is guarded.
type routeState struct {
	mu    sync.Mutex
	route *Route
}

func (r *routeState) set(rt Route) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.route = &rt
}

func (r *routeState) get() (Route, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.route == nil {
		return Route{}, false
	}
	return *r.route, true
}

// routerSpec is router__handoff-to over the destinations: agent is one of
// them, message an optional plain-text note.
func routerSpec(dests []string) *toolSpec {
	schema, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"agent":   map[string]any{"type": "string", "enum": dests, "description": "The destination agent to route to"},
			"message": map[string]any{"type": "string", "description": "Optional context for the destination agent (plain text)"},
		},
		"required":             []string{"agent"},
		"additionalProperties": false,
	})
	spec := &toolSpec{Tool: tools.Tool{Name: ToolRouterHandoff, Server: "agent", Kind: tools.KindInternal,
		Description: "Route the request to a destination agent, optionally with a note. The destination answers the user directly.",
		InputSchema: schema}, internal: true}
	if s, err := CompileSchema(schema); err == nil {
		spec.schema = s
	}
	return spec
}

// routerInstructions is the system prompt's line about the router tool.
func routerInstructions(dests []string) string {
	return "\n\nUse " + ToolRouterHandoff + " to route the original request to one of: " + strings.Join(dests, ", ") +
		". The destination agent then answers the user directly; you may instead answer with your final report."
}

// callRouter records the destination of a router__handoff-to call; the
// session ends after the turn.
func (s *session) callRouter(args json.RawMessage) (string, error) {
	var in struct {
		Agent   *string `json:"agent"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("router: %w", err)
	}
	if in.Agent == nil {
		return "", fmt.Errorf("agent must be a string")
	}
	if !slices.Contains(s.opts.Routes, *in.Agent) {
		return "", fmt.Errorf("unknown agent: %s", *in.Agent)
	}
	rt := Route{Agent: *in.Agent}
	if in.Message != nil {
		rt.Message = strings.TrimSpace(*in.Message)
	}
	s.route.set(rt)
	s.log.Debug("router selected a destination", "agent", rt.Agent)
	return "Routed to agent: " + rt.Agent, nil
}

// Route is the destination the session chose with router__handoff-to;
// ok is false when it ended any other way. Call it after Run.
func (x *Session) Route() (Route, bool) { return x.s.route.get() }

// UserPrompt is the session's user prompt.
func (x *Session) UserPrompt() string { return x.s.opts.UserPrompt }

// SetUserPrompt replaces the user prompt before Run (advisors enrich
// it); after Run it changes nothing.
func (x *Session) SetUserPrompt(p string) { x.s.opts.UserPrompt = p }
