// Package kv parses "key=value" lines, as in .env files.
package kv

import (
	"fmt"
	"strings"
)

// Parse reads key=value lines; blank lines and lines starting with # are
// skipped. A line without "=" is an error.
func Parse(text string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
		    return nil, fmt.Errorf("line %d: no '=' in %q", i+1, line)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}
