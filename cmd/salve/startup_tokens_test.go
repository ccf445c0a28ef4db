package main

import (
	"strings"
	"testing"
)

// TestStartupLinksNoTiktoken keeps the tiktoken vocabularies (megabytes of
// compiled-in data, and a package init in their regular expressions) out of
// the salve binary while it links the context guard: heal's llm tier
// estimates tokens with tokens.Approx, and only ai-agent links the exact
// counters of internal/llm/tokens/tiktoken.
func TestStartupLinksNoTiktoken(t *testing.T) {
	guard := false
	for _, dep := range linkedPackages(t) {
		switch {
		case strings.HasPrefix(dep, "github.com/tiktoken-go/tokenizer"):
			t.Errorf("salve links %s; estimate with tokens.Approx instead", dep)
		case dep == "github.com/salve-dev/salve/internal/llm/tokens/tiktoken":
			t.Errorf("salve links %s, which links the tiktoken vocabularies", dep)
		case dep == "github.com/salve-dev/salve/internal/agent/ctxguard/agentguard":
			guard = true
		}
	}
	if !guard {
		t.Error("salve does not link the context guard (ctxguard/agentguard); heal's llm tier should")
	}
}
