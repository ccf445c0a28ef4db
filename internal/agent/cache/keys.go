package cache

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools"
)

// Response is the value of an agent response entry.
type Response struct {
	FinalReport        *contract.FinalReport `json:"finalReport"`
	Conversation       []contract.Message    `json:"conversation"`
	ChildConversations [][]contract.Message  `json:"childConversations,omitempty"`
}

// Valid reports whether a stored response can stand for a session: a
// conversation and a final report with a format and a timestamp.
func (r Response) Valid() bool {
	return r.Conversation != nil && r.FinalReport != nil && r.FinalReport.Format != "" && r.FinalReport.TS > 0
}

// AgentKey is the key of an agent response: the agent's hash and the
// request (the user prompt before variables, the format, and the schema
// of a json session). The history is not part of it.
func AgentKey(agentHash, userPrompt, format string, schema json.RawMessage) (string, error) {
	req := map[string]any{"userPrompt": userPrompt, "format": format}
	if format == "json" && len(schema) > 0 {
		req["schema"] = schema
	}
	return Key(map[string]any{"v": 1, "kind": "agent", "agentHash": agentHash, "request": req})
}

// ToolKey is the key of a tool output: the tool's kind, namespace and
// name, and all its arguments.
func ToolKey(t tools.Tool, args json.RawMessage) (string, error) {
	name := t.LocalName
	if name == "" {
		name = t.Name
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return Key(map[string]any{"v": 1, "kind": "tool", "tool": map[string]any{"kind": string(t.Kind), "namespace": t.Server, "name": name}, "parameters": args})
}

// Tools caches the tool outputs of one agent; it implements the engine's
// ToolCache.
type Tools struct {
	Cache *Cache
	// TTL is a tool's time to live; 0 disables caching it.
	TTL       func(t tools.Tool) time.Duration
	AgentName string
	AgentHash string
	Log       *slog.Logger
}

type toolValue struct {
	Result string `json:"result"`
}

// Lookup returns the cached output of a call.
func (c *Tools) Lookup(ctx context.Context, t tools.Tool, args json.RawMessage) (string, bool) {
	ttl := c.TTL(t)
	if ttl <= 0 {
		return "", false
	}
	key, err := ToolKey(t, args)
	if err != nil {
		return "", false
	}
	var v toolValue
	age, ok, err := c.Cache.Get(ctx, key, ttl, &v)
	if err != nil {
		c.Log.Warn("tool cache read failed", "error", err)
		return "", false
	}
	if ok {
		c.Log.Debug("cache hit: "+t.Name, "cache_kind", "tool", "cache_key", key, "cache_age_ms", age.Milliseconds(),
			"cache_current_agent", c.AgentName, "cache_current_tool", t.Name, "cache_current_tool_namespace", t.Server)
	}
	return v.Result, ok
}

// Store keeps the output of a successful call.
func (c *Tools) Store(ctx context.Context, t tools.Tool, args json.RawMessage, out string) {
	ttl := c.TTL(t)
	if ttl <= 0 {
		return
	}
	key, err := ToolKey(t, args)
	if err == nil {
		err = c.Cache.Set(ctx, key, Meta{Kind: "tool", AgentName: c.AgentName, ToolName: t.Name, ToolNamespace: t.Server, AgentHash: c.AgentHash}, toolValue{Result: out}, ttl)
	}
	if err != nil {
		c.Log.Warn("tool cache write failed: " + err.Error())
	}
}
