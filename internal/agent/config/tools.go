package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// ErrUnknownTool marks a tool name that is neither an MCP server, a REST
// tool nor batch (exit 3 in the CLI).
var ErrUnknownTool = errors.New("unknown tool")

// ToolEntry is one configured tool source: its name, its merged entry as
// JSON (variables checked) and the queue it binds to.
type ToolEntry struct {
	Name  string
	JSON  json.RawMessage
	Queue string
}

// ToolSources are a session's tool names sorted by kind
// (docs/contracts/ai-agent-cli.md §11).
type ToolSources struct {
	// Batch is set when the names include batch.
	Batch bool
	// REST are the restTools entries, MCP the enabled mcpServers entries,
	// in the order named.
	REST, MCP []ToolEntry
	// OpenAPI are the openapiSpecs entries named "openapi:NAME", in the
	// order named; each entry's operations become REST tools.
	OpenAPI []ToolEntry
}

// OpenAPIPrefix starts a tool name that selects an openapiSpecs entry.
const OpenAPIPrefix = "openapi:"

// ToolSources sorts names into batch, REST tools, OpenAPI documents
// ("openapi:NAME") and enabled MCP servers. A name that is none of them is
// an error wrapping ErrUnknownTool; an entry with an unresolved variable
// is a MissingVariableError.
func (c *Config) ToolSources(names []string) (ToolSources, error) {
	var ts ToolSources
	for _, name := range names {
		section := ""
		if spec, ok := strings.CutPrefix(name, OpenAPIPrefix); ok {
			if !c.Has("openapiSpecs", spec) {
				return ts, fmt.Errorf("%w: tool %q: openapiSpecs has no entry %q", ErrUnknownTool, name, spec)
			}
			raw, err := c.RawJSON("openapiSpecs", spec)
			if err != nil {
				return ts, err
			}
			ts.OpenAPI = append(ts.OpenAPI, ToolEntry{Name: spec, JSON: raw})
			continue
		}
		switch {
		case name == "batch":
			ts.Batch = true
			continue
		case c.Has("restTools", name):
			section = "restTools"
		case c.MCPEnabled(name):
			section = "mcpServers"
		default:
			return ts, fmt.Errorf("%w: tool %q is neither an MCP server, a REST tool nor batch", ErrUnknownTool, name)
		}
		raw, err := c.RawJSON(section, name)
		if err != nil {
			return ts, err
		}
		q, _ := c.Raw(section, name, "queue").(string)
		e := ToolEntry{Name: name, JSON: raw, Queue: q}
		if section == "restTools" {
			ts.REST = append(ts.REST, e)
		} else {
			ts.MCP = append(ts.MCP, e)
		}
	}
	return ts, nil
}

// MCPEnabled reports whether mcpServers names an entry that is not
// switched off with "enabled": false.
func (c *Config) MCPEnabled(name string) bool {
	if !c.Has("mcpServers", name) {
		return false
	}
	enabled, ok := c.Raw("mcpServers", name, "enabled").(bool)
	return !ok || enabled
}

// MCPServers lists the enabled MCP servers, sorted.
func (c *Config) MCPServers() []string {
	var out []string
	for _, n := range c.Keys("mcpServers") {
		if c.MCPEnabled(n) {
			out = append(out, n)
		}
	}
	return out
}

// Queues reads queues.NAME.concurrent (docs/contracts/ai-agent-cli.md
// §9.7); the caller adds the default queue when missing.
func (c *Config) Queues() (map[string]int, error) {
	out := map[string]int{}
	for _, q := range c.Keys("queues") {
		n, err := Int(c.Raw("queues", q, "concurrent"), 1)
		if err != nil {
			return nil, fmt.Errorf("%w: queues.%s.concurrent must be a positive integer", ErrConfig, q)
		}
		out[q] = n
	}
	return out, nil
}

// CacheSection is the config's cache section (docs/ai-agent.md,
// "Caching").
type CacheSection struct {
	Backend    string `json:"backend"`
	MaxEntries int    `json:"maxEntries"`
	SQLite     struct {
		Path string `json:"path"`
	} `json:"sqlite"`
}

// Cache reads the cache section.
func (c *Config) Cache() (CacheSection, error) {
	var s CacheSection
	err := c.Decode(&s, "cache")
	return s, err
}

// ToolCacheTTLs reads the cache and toolsCache members of every MCP
// server and the cache member of every REST tool, into the TTL of a tool
// (the tool's name, then its sanitised name, then the server's); positive
// says some TTL is above 0.
func (c *Config) ToolCacheTTLs() (ttl func(tools.Tool) time.Duration, positive bool, err error) {
	type serverTTL struct {
		all   time.Duration
		tools map[string]time.Duration
	}
	mcpTTL := map[string]serverTTL{}
	restTTL := map[string]time.Duration{}
	for _, srv := range c.Keys("mcpServers") {
		what := "mcpServers." + srv
		all, _, err := ParseCacheTTL(what, c.Raw("mcpServers", srv, "cache"))
		if err != nil {
			return nil, false, err
		}
		e := serverTTL{all: all, tools: map[string]time.Duration{}}
		positive = positive || all > 0
		for _, tool := range c.Keys("mcpServers", srv, "toolsCache") {
			ttl, set, err := ParseCacheTTL(what+".toolsCache."+tool, c.Raw("mcpServers", srv, "toolsCache", tool))
			if err != nil {
				return nil, false, err
			}
			if set {
				e.tools[tool] = ttl
				positive = positive || ttl > 0
			}
		}
		mcpTTL[srv] = e
	}
	for _, name := range c.Keys("restTools") {
		ttl, _, err := ParseCacheTTL("restTools."+name, c.Raw("restTools", name, "cache"))
		if err != nil {
			return nil, false, err
		}
		restTTL["rest__"+tools.SanitizeName(name)] = ttl
		positive = positive || ttl > 0
	}
	return func(t tools.Tool) time.Duration {
		switch t.Kind {
		case tools.KindMCP:
			e := mcpTTL[t.Server]
			for _, n := range []string{t.LocalName, tools.SanitizeName(t.LocalName)} {
				if ttl, ok := e.tools[n]; ok {
					return ttl
				}
			}
			return e.all
		case tools.KindREST:
			return restTTL[t.Name]
		}
		return 0
	}, positive, nil
}
