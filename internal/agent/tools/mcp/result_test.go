package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRenderResult(t *testing.T) {
	tests := []struct {
		name, wire string
		want       string
		wantErr    bool
		isError    bool
	}{
		{name: "texts joined", wire: `{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`, want: "a\nb"},
		{name: "empty", wire: `{"content":[]}`, want: ""},
		{name: "resource link as JSON", wire: `{"content":[{"type":"resource_link","uri":"file:///x","name":"x"}]}`, want: `{"type":"resource_link","uri":"file:///x","name":"x"}`},
		{name: "structured only", wire: `{"content":[],"structuredContent":{"t":22}}`, want: `{"t":22}`},
		{name: "isError", wire: `{"content":[{"type":"text","text":"boom"}],"isError":true}`, want: "boom", isError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res sdk.CallToolResult
			if err := json.Unmarshal([]byte(tt.wire), &res); err != nil {
				t.Fatal(err)
			}
			got, err := RenderResult(&res)
			if (err != nil) != tt.wantErr || got.Text != tt.want || got.IsError != tt.isError {
				t.Fatalf("RenderResult = %+v, %v; want %q isError=%v", got, err, tt.want, tt.isError)
			}
		})
	}
	if _, err := RenderResult(nil); err == nil {
		t.Fatal("nil result rendered")
	}
}

// FuzzRenderResult decodes arbitrary server bytes as a tool result, the way
// the client does, and renders what decodes: it must never panic, and every
// text item must appear in the output.
func FuzzRenderResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a"}]}`,
		`{"content":[{"type":"image","data":"UE5H","mimeType":"image/png"}],"isError":true}`,
		`{"content":[{"type":"resource","resource":{"uri":"x","text":"t"}}]}`,
		`{"content":null,"structuredContent":[1,2]}`,
		`{"content":[null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		var res sdk.CallToolResult
		if json.Unmarshal(wire, &res) != nil {
			return
		}
		got, err := RenderResult(&res)
		if err != nil {
			return
		}
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok && !strings.Contains(got.Text, tc.Text) {
				t.Fatalf("text %q missing from %q", tc.Text, got.Text)
			}
		}
	})
}

// FuzzExpander checks that placeholder expansion never panics and that text
// without "${" is returned unchanged.
func FuzzExpander(f *testing.F) {
	for _, s := range []string{"", "${A}", "x${", "${}", "$${A}}", "a${B}c${A"} {
		f.Add(s)
	}
	x := Expander(func(k string) string { return "<" + k + ">" })
	f.Fuzz(func(t *testing.T, s string) {
		got := x(s)
		if !strings.Contains(s, "${") && got != s {
			t.Fatalf("expand(%q) = %q", s, got)
		}
	})
}
