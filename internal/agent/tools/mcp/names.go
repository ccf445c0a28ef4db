package mcp

import (
	"path"
	"strings"

	"github.com/salve-dev/salve/internal/agent/tools"
)

// ExposedName is the name a model sees for a server's tool: SERVER__TOOL,
// both parts sanitised with tools.SanitizeName
// (docs/contracts/ai-agent-cli.md §11 "Names").
func ExposedName(server, tool string) string {
	return tools.SanitizeName(server) + "__" + tools.SanitizeName(tool)
}

// Filter decides which of a server's tools are exposed, by local name
// (docs/contracts/ai-agent-cli.md §9.5): an absent or empty allow list, or
// one that is "*" or "any" alone, allows every tool; otherwise a tool must
// match one allowed pattern. A tool matching a denied pattern is never
// exposed: deny wins. Patterns are path.Match globs (`*`, `?`, `[…]`); a
// malformed pattern matches only its exact text.
type Filter struct {
	Allowed, Denied []string
}

// Allows reports whether the tool with the local name is exposed.
func (f Filter) Allows(name string) bool {
	if matchAny(f.Denied, name, false) {
		return false
	}
	return matchAny(f.Allowed, name, true)
}

func matchAny(patterns []string, name string, emptyMatches bool) bool {
	if len(patterns) == 0 {
		return emptyMatches
	}
	if len(patterns) == 1 {
		if p := strings.TrimSpace(patterns[0]); p == "*" || strings.EqualFold(p, "any") {
			return true
		}
	}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == name {
			return true
		}
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}
