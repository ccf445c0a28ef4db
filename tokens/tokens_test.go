package tokens

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

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
				if !errors.Is(err, ErrUnknownTokenizer) {
					t.Fatalf("New(%q, %q) error = %v, want ErrUnknownTokenizer", tt.spec, tt.model, err)
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
	lazy := c.(Tiktoken).lazy
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

func TestApproxBasics(t *testing.T) {
	tests := []struct {
		text     string
		min, max int
	}{
		{text: "", min: 0, max: 0},
		{text: "a", min: 1, max: 2},
		{text: "hello world", min: 2, max: 3},
		{text: strings.Repeat("word ", 100), min: 90, max: 140},
		{text: "{\"a\":1}", min: 3, max: 8},
		{text: "日本語のテキスト", min: 8, max: 12},
		{text: "\xff\xfe invalid", min: 2, max: 5},
	}
	for _, tt := range tests {
		if got := (Approx{}).Count(tt.text); got < tt.min || got > tt.max {
			t.Errorf("Approx.Count(%q) = %d, want in [%d, %d]", tt.text, got, tt.min, tt.max)
		}
	}
}

// FuzzApprox feeds arbitrary text (tool outputs are untrusted) and checks
// that Approx never panics, is zero only for empty text, and grows with the
// text: splitting a text never makes the parts cost more than one token
// each above the whole.
func FuzzApprox(f *testing.F) {
	for _, s := range []string{"", "hello", "{\"a\": [1, 2]}", "日本", "\xff", "  \n\t x"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		n := Approx{}.Count(s)
		if (n == 0) != (s == "") {
			t.Fatalf("Count(%q) = %d", s, n)
		}
		if n > 3*len(s)+1 {
			t.Fatalf("Count(%q) = %d, more than 3 per byte", s, n)
		}
		if len(s) == 0 {
			return
		}
		i := (cut%len(s) + len(s)) % len(s)
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		a, b := Approx{}.Count(s[:i]), Approx{}.Count(s[i:])
		if a+b+2 < n {
			t.Fatalf("parts %d+%d cost less than the whole %d for %q at %d", a, b, n, s, i)
		}
	})
}

func benchText(b *testing.B) string {
	files := corpus(b)
	var sb strings.Builder
	for _, name := range []string{"prose_en.txt", "code_go.txt", "schema_json.txt", "log.txt"} {
		sb.WriteString(files[name])
	}
	return sb.String()
}

func BenchmarkApprox(b *testing.B) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Approx{}.Count(text)
	}
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
