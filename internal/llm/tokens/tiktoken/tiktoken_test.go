package tiktoken

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm/tokens"
	"github.com/tiktoken-go/tokenizer"
)

func TestNew(t *testing.T) {
	tests := []struct {
		spec, model string
		want        string
		wantErr     bool
	}{
		{spec: "", model: "gpt-4o", want: "tiktoken:o200k_base"},
		{spec: "", model: "gpt-4o-mini", want: "tiktoken:o200k_base"},
		{spec: "", model: "openai/gpt-4.1-mini", want: "tiktoken:o200k_base"},
		{spec: "", model: "gpt-4-turbo", want: "tiktoken:cl100k_base"},
		{spec: "", model: "gpt-3.5-turbo", want: "tiktoken:cl100k_base"},
		{spec: "", model: "o3-mini", want: "tiktoken:o200k_base"},
		{spec: "", model: "gpt-5", want: "tiktoken:o200k_base"},
		{spec: "", model: "claude-sonnet-4", want: "approx"},
		{spec: "", model: "qwen3", want: "approx"},
		{spec: "", model: "o1x", want: "approx"},
		{spec: "", model: "", want: "approx"},
		{spec: "approx", model: "gpt-4o", want: "approx"},
		{spec: " Approx ", model: "gpt-4o", want: "approx"},
		{spec: "tiktoken", model: "qwen3", want: "tiktoken:o200k_base"},
		{spec: "tiktoken", model: "gpt-4", want: "tiktoken:cl100k_base"},
		{spec: "cl100k_base", model: "qwen3", want: "tiktoken:cl100k_base"},
		{spec: "tiktoken:p50k_base", model: "", want: "tiktoken:p50k_base"},
		{spec: "tiktoken:gpt-4o", model: "local-model", want: "tiktoken:o200k_base"},
		{spec: "tiktoken:llama", model: "", wantErr: true},
		{spec: "sentencepiece", model: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.spec+"|"+tt.model, func(t *testing.T) {
			c, err := New(tt.spec, tt.model)
			if tt.wantErr {
				if !errors.Is(err, tokens.ErrUnknownTokenizer) {
					t.Fatalf("New(%q, %q) error = %v, want tokens.ErrUnknownTokenizer", tt.spec, tt.model, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q, %q): %v", tt.spec, tt.model, err)
			}
			if c.Name() != tt.want {
				t.Fatalf("New(%q, %q) = %s, want %s", tt.spec, tt.model, c.Name(), tt.want)
			}
		})
	}
}

// TestNewIsLazy checks that choosing a tiktoken counter builds no codec: the
// vocabulary is only loaded by the first Count.
func TestNewIsLazy(t *testing.T) {
	c, err := New("p50k_edit", "")
	if err != nil {
		t.Fatal(err)
	}
	lazy := c.(Counter).lazy
	if lazy.codec != nil {
		t.Fatal("codec built by New")
	}
	if n := c.Count("hello world"); n != 2 {
		t.Fatalf("Count(hello world) = %d, want 2", n)
	}
	if lazy.codec == nil {
		t.Fatal("codec not built by Count")
	}
}

// TestTiktokenExact checks known counts of the real encodings.
func TestTiktokenExact(t *testing.T) {
	tests := []struct {
		enc, text string
		want      int
	}{
		{enc: "cl100k_base", text: "", want: 0},
		{enc: "cl100k_base", text: "hello world", want: 2},
		{enc: "cl100k_base", text: "tiktoken is great!", want: 6},
		{enc: "o200k_base", text: "hello world", want: 2},
	}
	for _, tt := range tests {
		c, _ := New(tt.enc, "")
		codec, _ := tokenizer.Get(tokenizer.Encoding(tt.enc))
		ref, _ := codec.Count(tt.text)
		if got := c.Count(tt.text); got != tt.want || got != ref {
			t.Errorf("%s Count(%q) = %d, want %d (codec says %d)", tt.enc, tt.text, got, tt.want, ref)
		}
	}
}

// benchText is a mix of the corpus of package tokens.
func benchText(b *testing.B) string {
	var sb strings.Builder
	for _, name := range []string{"prose_en.txt", "code_go.txt", "schema_json.txt", "log.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", name))
		if err != nil {
			b.Fatal(err)
		}
		sb.Write(data)
	}
	return sb.String()
}

func BenchmarkTiktokenO200k(b *testing.B) {
	text := benchText(b)
	c, _ := New("o200k_base", "")
	c.Count("warm up")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		c.Count(text)
	}
}

func BenchmarkTiktokenCl100k(b *testing.B) {
	text := benchText(b)
	c, _ := New("cl100k_base", "")
	c.Count("warm up")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		c.Count(text)
	}
}
