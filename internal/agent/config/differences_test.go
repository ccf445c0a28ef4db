package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDifferencesDocumented: docs/ai-agent.md lists every key salve reads
// differently with the same words the warning uses.
func TestDifferencesDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "ai-agent.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, d := range Differences {
		row := "| " + d.Where + " | `" + DocKey(d) + "` | " + d.Instead + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/ai-agent.md lacks the row\n%s", row)
		}
	}
}

// TestDifferenceWarnings: a config key of the table warns at its place,
// with its value where the row names one, and nowhere else.
func TestDifferenceWarnings(t *testing.T) {
	tree := map[string]any{
		"providers": map[string]any{
			"a": map[string]any{"custom": map[string]any{}, "tokenizer": "anthropic", "models": map[string]any{"m": map[string]any{"tokenizer": "tiktoken:gpt-4o"}}},
			"b": map[string]any{"tokenizer": "gemini:google"},
		},
		"defaults": map[string]any{"maxTurns": 3, "formats": map[string]any{}},
	}
	got := differenceWarnings(tree)
	want := []string{"defaults.formats", "providers.a.custom", "providers.a.tokenizer (anthropic)", "providers.b.tokenizer (gemini:*)"}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], "config key "+w+" is accepted but salve differs: ") {
			t.Errorf("warning %d = %q, want one for %s", i, got[i], w)
		}
	}
	if s := salveTokenizer("Anthropic"); s != "approx" {
		t.Errorf("tokenizer anthropic counts with %q", s)
	}
	if s := salveTokenizer("tiktoken:gpt-4o"); s != "tiktoken:gpt-4o" {
		t.Errorf("tokenizer tiktoken:gpt-4o became %q", s)
	}
}
