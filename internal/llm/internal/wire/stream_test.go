package wire

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func readEvents(t testing.TB, in string) ([]Event, error) {
	t.Helper()
	r := NewSSEReader(strings.NewReader(in))
	var out []Event
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"openai data lines", "data: {\"a\":1}\n\ndata: [DONE]\n\n", `[message:{"a":1}][message:[DONE]]`},
		{"anthropic named events", "event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n", `[message_start:{}][ping:{"type": "ping"}]`},
		{"crlf endings", "event: e\r\ndata: x\r\n\r\n", `[e:x]`},
		{"cr endings", "data: x\r\rdata: y\r\r", `[message:x][message:y]`},
		{"multi-line data", "data: a\ndata: b\n\n", "[message:a\nb]"},
		{"comments and ids ignored", ": keep-alive\nid: 7\nretry: 10\ndata: x\n\n", `[message:x]`},
		{"no space after colon", "data:x\n\n", `[message:x]`},
		{"field without colon", "data\n\n", `[message:]`},
		{"blank lines between", "\n\n\ndata: x\n\n\n", `[message:x]`},
		{"event without data dropped", "event: lonely\n\ndata: y\n\n", `[message:y]`},
		{"unterminated last event dropped", "data: x\n\ndata: cut", `[message:x]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := readEvents(t, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, e := range evs {
				name := e.Name
				if name == "" {
					name = "message"
				}
				fmt.Fprintf(&b, "[%s:%s]", name, e.Data)
			}
			if b.String() != tt.want {
				t.Fatalf("got %s, want %s", b.String(), tt.want)
			}
		})
	}
}

func TestNDJSONReader(t *testing.T) {
	r := NewNDJSONReader(strings.NewReader("{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}"))
	var got []string
	for {
		line, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if strings.Join(got, "|") != `{"a":1}|{"b":2}|{"c":3}` {
		t.Fatalf("got %q", got)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReadErrorsPassThrough(t *testing.T) {
	boom := errors.New("boom")
	if _, err := NewSSEReader(io.MultiReader(strings.NewReader("data: x\n"), failingReader{boom})).Next(); !errors.Is(err, boom) {
		t.Fatalf("SSE err = %v", err)
	}
	if _, err := NewNDJSONReader(failingReader{io.ErrUnexpectedEOF}).Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("NDJSON err = %v", err)
	}
}

func TestJoinURLAndHeader(t *testing.T) {
	if got := JoinURL("http://h/v1/", "/chat/completions"); got != "http://h/v1/chat/completions" {
		t.Fatal(got)
	}
	h := Header(map[string]string{"X-Org": "acme", "Authorization": "custom"}, "Authorization", "Bearer k", "X-Empty", "")
	if h.Get("Authorization") != "Bearer k" || h.Get("X-Org") != "acme" || h.Get("X-Empty") != "" {
		t.Fatalf("header %v", h)
	}
}

func FuzzSSEReader(f *testing.F) {
	f.Add("event: a\ndata: b\n\n")
	f.Add("data: x\r\ndata: y\r\r\n\n: c\n")
	f.Fuzz(func(t *testing.T, in string) {
		evs, err := readEvents(t, in)
		if err != nil {
			t.Fatalf("error on in-memory input: %v", err)
		}
		for _, e := range evs {
			if strings.ContainsAny(e.Name, "\r\n") {
				t.Fatalf("event name with line break: %q", e.Name)
			}
		}
	})
}

func FuzzNDJSONReader(f *testing.F) {
	f.Add("{}\n{\"a\":1}\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := NewNDJSONReader(strings.NewReader(in))
		for n := 0; ; n++ {
			line, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(strings.TrimSpace(string(line))) == 0 || n > len(in) {
				t.Fatalf("blank or runaway line %q", line)
			}
		}
	})
}
