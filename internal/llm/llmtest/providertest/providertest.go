// Package providertest is what the tests of every provider package
// (openai, anthropic, ollama) share: the request golden files, the decode
// benchmark (one typical answer from memory, as a whole body and as a
// stream) and the request that encoding is measured on.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// Decode benchmarks decoding [llmtest.SampleReply] in wire from memory:
// "json" hands the whole body to decode, "stream" the whole stream to read.
// Every decoded answer must hold the sample's two tool calls.
func Decode(b *testing.B, wire llmtest.Wire, decode func([]byte) (llm.Response, error), read func(context.Context, *http.Response) (llm.Response, error)) {
	body := llmtest.Render(wire, false, llmtest.SampleReply())
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if out, err := decode(body); err != nil || len(out.ToolCalls) != 2 {
				b.Fatal(err)
			}
		}
	})
	stream := llmtest.Render(wire, true, llmtest.SampleReply())
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(stream)))
		for b.Loop() {
			resp := &http.Response{Body: io.NopCloser(bytes.NewReader(stream))}
			if out, err := read(context.Background(), resp); err != nil || len(out.ToolCalls) != 2 {
				b.Fatal(err)
			}
		}
	})
}

// Request is the request encoding is measured on: a long system prompt and
// ten rounds of a user message, a tool call and its result (31 messages).
func Request() llm.Request {
	msgs := []llm.Message{{Role: "system", Content: strings.Repeat("You are a careful engineer. ", 40)}}
	for range 10 {
		msgs = append(msgs,
			llm.Message{Role: "user", Content: strings.Repeat("Please look at the code. ", 20)},
			llm.Message{Role: "assistant", Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: "c", Name: "fs__read_file", Arguments: `{"path":"a.go"}`}}},
			llm.Message{Role: "tool", ToolCallID: "c", Content: strings.Repeat("package main\n", 50)})
	}
	return llm.Request{Model: "m", Messages: msgs}
}

// RequestGolden compares the JSON request body sent, indented, with the
// golden file path; with update it rewrites the file first (go test
// -update).
func RequestGolden(t testing.TB, path string, body []byte, update bool) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(want, pretty.Bytes()) {
		t.Fatalf("request differs from %s (go test -update rewrites it)\nwant:\n%s\ngot:\n%s", path, want, pretty.Bytes())
	}
}
