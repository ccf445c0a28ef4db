package config

import "strings"

// ParseEnvFile reads a .ai-agent.env file
// (docs/contracts/ai-agent-cli.md §9.2): one KEY=VALUE per line; blank
// lines, # lines and lines without = are skipped; "export " is allowed; key
// and value are trimmed and one pair of matching quotes around the value is
// removed. There are no escapes and no interpolation.
func ParseEnvFile(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "" {
			continue
		}
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}
