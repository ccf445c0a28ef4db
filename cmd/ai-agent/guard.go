package main

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/salve-dev/salve/agent"
	"github.com/salve-dev/salve/ctxguard"
	"github.com/salve-dev/salve/llm"
	"github.com/salve-dev/salve/tokens"
)

// guard adapts ctxguard.Guard, which counts tokens, to agent.ContextGuard,
// which sees texts: it estimates tokens with the first target's tokenizer.
type guard struct {
	g     *ctxguard.Guard
	count tokens.Counter
	// started is false until the prompts were counted as pending.
	started bool
}

var _ agent.ContextGuard = (*guard)(nil)

// newGuard builds the context guard of a session over its targets.
func newGuard(targets []agent.Target, log *slog.Logger) (*guard, error) {
	counter, err := tokens.New(targets[0].Tokenizer, targets[0].Model)
	if err != nil {
		return nil, err
	}
	var ts []ctxguard.Target
	for _, t := range targets {
		ts = append(ts, ctxguard.Target{Provider: t.Provider, Model: t.Model, ContextWindow: t.ContextWindow,
			BufferTokens: t.ContextWindowBufferTokens, MaxOutputTokens: t.Params.MaxOutputTokens})
	}
	g, err := ctxguard.New(ctxguard.Options{Targets: ts, StubTokens: counter.Count(ctxguard.StubText), Logger: log})
	if err != nil {
		return nil, err
	}
	return &guard{g: g, count: counter}, nil
}

// schemaTokens is the cost of what changes per request: the tool
// definitions and the ephemeral messages (retry notices, XML-NEXT).
func (x *guard) schemaTokens(t agent.GuardTurn) int {
	n := 0
	for _, d := range t.Tools {
		b, _ := json.Marshal(map[string]any{"name": d.Name, "description": d.Description, "parameters": d.InputSchema})
		n += x.count.Count(string(b))
	}
	for _, m := range t.Messages {
		if m.Ephemeral {
			n += x.count.Count(m.Content)
		}
	}
	return n
}

// TurnPreflight counts the prompts before the first request, then projects.
func (x *guard) TurnPreflight(t agent.GuardTurn) bool {
	if !x.started {
		x.started = true
		for _, m := range t.Messages {
			if !m.Ephemeral {
				x.g.AddPending(x.count.Count(m.Content))
			}
		}
	}
	x.g.SetSchemaTokens(x.schemaTokens(t))
	return x.g.TurnPreflight(context.Background()).ForceFinal
}

// FinalPreflight re-evaluates the shrunk request after the guard fired.
func (x *guard) FinalPreflight(t agent.GuardTurn) {
	x.g.ForceFinal(context.Background(), 0, x.schemaTokens(t))
}

// ToolPreflight decides whether a tool output may be committed.
func (x *guard) ToolPreflight(tool, output string) bool {
	return x.g.ToolPreflight(context.Background(), tool, x.count.Count(output)).Commit
}

// Committed records a response's usage.
func (x *guard) Committed(_ agent.Target, resp llm.Response) {
	x.g.CommitResponse(resp.Usage, x.count.Count(resp.Content))
}
