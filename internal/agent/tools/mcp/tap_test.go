package mcp

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestSchemaTap(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"z":{},"a":{}}}},{"name":"a","description":"x","inputSchema":{"type":"object"}}]}}`
	tests := []struct {
		name   string
		stream string
		want   map[string]string
	}{
		{name: "ndjson among other messages", stream: `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + list + "\n",
			want: map[string]string{"b": `{"type":"object","properties":{"z":{},"a":{}}}`, "a": `{"type":"object"}`}},
		{name: "sse data line", stream: "event: message\ndata: " + list + "\n\n", want: map[string]string{"a": `{"type":"object"}`}},
		{name: "plain body without newline", stream: list, want: map[string]string{"a": `{"type":"object"}`}},
		{name: "a tool result mentioning inputSchema is ignored", stream: `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"\"inputSchema\""}]}}` + "\n"},
		{name: "overlong line skipped, next line read", stream: `{"x":"` + strings.Repeat("y", maxTapLine) + `"inputSchema"}` + "\n" + list + "\n",
			want: map[string]string{"a": `{"type":"object"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tap := newSchemaTap()
			// One byte at a time: lines arrive split across reads.
			r := newTapReader(iotest.OneByteReader(strings.NewReader(tt.stream)), tap)
			if len(tt.stream) > 1<<20 {
				r = newTapReader(strings.NewReader(tt.stream), tap)
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.want {
				got, ok := tap.schema(name)
				if !ok || string(got) != want {
					t.Fatalf("schema(%s) = %s, %v; want %s", name, got, ok, want)
				}
			}
			if len(tt.want) == 0 {
				if _, ok := tap.schema("a"); ok {
					t.Fatal("recorded a schema from a non-list message")
				}
			}
		})
	}
}
