package tooloutput

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestLines(t *testing.T) {
	content := "a\nb\nc\nd"
	cases := []struct {
		spec, want string
		err        bool
	}{
		{spec: "2-3", want: "2: b\n3: c\n"},
		{spec: "3-", want: "3: c\n4: d\n"},
		{spec: "4", want: "4: d\n"},
		{spec: "1:2", want: "1: a\n2: b\n"},
		{spec: "3-99", want: "3: c\n4: d\n"},
		{spec: "5", err: true},
		{spec: "0-2", err: true},
		{spec: "3-2", err: true},
		{spec: "x", err: true},
		{spec: "", err: true},
	}
	for _, tc := range cases {
		got, err := Lines(content, tc.spec)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("Lines(%q) = %q, %v; want %q (error %v)", tc.spec, got, err, tc.want, tc.err)
		}
	}
}

func TestGrep(t *testing.T) {
	content := "alpha one\nBeta two\ngamma three"
	cases := []struct{ pattern, want string }{
		{pattern: "beta", want: "2: Beta two\n"},
		{pattern: "^(alpha|gamma)", want: "1: alpha one\n3: gamma three\n"},
		{pattern: "tell me about gamma", want: "3: gamma three\n"},
		{pattern: "([", want: NoData},
		{pattern: "delta", want: NoData},
	}
	for _, tc := range cases {
		if got := Grep(content, tc.pattern); got != tc.want {
			t.Errorf("Grep(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

func TestStoreBounds(t *testing.T) {
	s := NewStore(2, 0)
	a := s.Put("t", "{}", "one", zeroTime)
	s.Put("t", "{}", "two", zeroTime)
	c := s.Put("t", "{}", "three", zeroTime)
	if _, ok := s.Get(a.Handle); ok || s.Len() != 2 {
		t.Fatalf("oldest entry not evicted: len %d", s.Len())
	}
	if e, ok := s.Get(c.Handle); !ok || e.Lines != 1 || e.Bytes != 5 {
		t.Fatalf("entry: %+v %v", e, ok)
	}
	s = NewStore(0, 10)
	s.Put("t", "{}", strings.Repeat("x", 8), zeroTime)
	s.Put("t", "{}", strings.Repeat("y", 8), zeroTime)
	if s.Len() != 1 {
		t.Fatalf("byte bound not kept: len %d", s.Len())
	}
}

func TestChunksCoverContent(t *testing.T) {
	content := strings.Repeat("héllo wörld ", 400)
	chunks := Chunks(content, 600, 10)
	if len(chunks) < 2 || chunks[0][:10] != content[:10] || !strings.HasSuffix(content, chunks[len(chunks)-1]) {
		t.Fatalf("%d chunks do not cover the content", len(chunks))
	}
	for i, c := range chunks {
		if len(c) > 600 || !utf8.ValidString(c) {
			t.Fatalf("chunk %d: %d bytes, valid %v", i, len(c), utf8.ValidString(c))
		}
	}
}

func TestSuccessCap(t *testing.T) {
	e := &Entry{Handle: "h", Tool: "t"}
	if got := Success(e, ModeLines, strings.Repeat("é", 100), 80); len(got) > 80 || !utf8.ValidString(got) {
		t.Fatalf("over the cap or broken: %d %q", len(got), got)
	}
	if got := Success(e, ModeLines, "x", 10); !strings.HasPrefix(got, "tool_output response truncated") {
		t.Fatalf("got %q", got)
	}
}

// FuzzExtract: model-chosen ranges and patterns never panic, and chunks
// stay valid UTF-8 and within size.
func FuzzExtract(f *testing.F) {
	f.Add("a\nb\nc", "2-3", "b|c", 10)
	f.Add("ü\n\n", "1:5", "(", 0)
	f.Fuzz(func(t *testing.T, content, spec, pattern string, overlap int) {
		_, _ = Lines(content, spec)
		_ = Grep(content, pattern)
		if !utf8.ValidString(content) {
			return
		}
		for _, c := range Chunks(content, 512, ((overlap%51)+51)%51) {
			if len(c) > 512 || !utf8.ValidString(c) {
				t.Fatalf("bad chunk %q", c)
			}
		}
	})
}

var zeroTime time.Time
