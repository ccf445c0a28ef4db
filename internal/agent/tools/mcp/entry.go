package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// entryJSON is the shape of one `mcpServers.NAME` config entry
// (docs/contracts/ai-agent-cli.md §9.5). Keys the spec lets implementations
// ignore are not decoded.
type entryJSON struct {
	Type         string            `json:"type"`
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	URL          string            `json:"url"`
	Headers      map[string]string `json:"headers"`
	Enabled      *bool             `json:"enabled"`
	ToolsAllowed []string          `json:"toolsAllowed"`
	ToolsDenied  []string          `json:"toolsDenied"`
	Queue        string            `json:"queue"`
	// RequestTimeoutMs is used when it is a positive number, as in the
	// original; anything else is ignored.
	RequestTimeoutMs any `json:"requestTimeoutMs"`
	HealthProbe      any `json:"healthProbe"`
}

// DecodeEntry reads one merged `mcpServers.NAME` entry into a ServerConfig.
// It reports whether the entry is enabled (`enabled: false` counts as not
// configured). A malformed entry is a *[StartError] at [StageConfig].
func DecodeEntry(name string, entry json.RawMessage) (cfg ServerConfig, enabled bool, err error) {
	var e entryJSON
	dec := json.NewDecoder(bytes.NewReader(entry))
	if err := dec.Decode(&e); err != nil {
		return ServerConfig{}, false, &StartError{Server: name, Stage: StageConfig, Err: fmt.Errorf("decode entry: %w", err)}
	}
	cfg = ServerConfig{
		Name: name, Type: e.Type, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers,
		ToolsAllowed: e.ToolsAllowed, ToolsDenied: e.ToolsDenied, Queue: e.Queue,
		RequestTimeout: millis(e.RequestTimeoutMs), HealthProbe: normalizeProbe(e.HealthProbe),
	}
	return cfg, e.Enabled == nil || *e.Enabled, nil
}

// millis reads a number of milliseconds: a positive finite number (a
// fraction is cut off), else zero.
func millis(v any) time.Duration {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || f < 1 || f > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0
	}
	return time.Duration(int64(f)) * time.Millisecond
}

// StartEntry is the engine's MCP plug (cmd/ai-agent's mcpStarter): it
// decodes the entry and starts the server with opts, whose Expand fills the
// `${NAME}` placeholders of its env and headers (see [Expander]).
func StartEntry(ctx context.Context, name string, entry json.RawMessage, opts Options) (tools.Provider, error) {
	cfg, _, err := DecodeEntry(name, entry)
	if err != nil {
		return nil, err
	}
	return Start(ctx, cfg, opts)
}

// Expander returns a function that replaces every `${NAME}` in a string with
// lookup(NAME); `$NAME` without braces and an unclosed `${` stay literal. A
// nil lookup returns nil.
func Expander(lookup func(string) string) func(string) string {
	if lookup == nil {
		return nil
	}
	return func(s string) string {
		var b strings.Builder
		for {
			i := strings.Index(s, "${")
			if i < 0 {
				break
			}
			j := strings.IndexByte(s[i+2:], '}')
			if j < 0 {
				break
			}
			b.WriteString(s[:i])
			b.WriteString(lookup(s[i+2 : i+2+j]))
			s = s[i+2+j+1:]
		}
		b.WriteString(s)
		return b.String()
	}
}
