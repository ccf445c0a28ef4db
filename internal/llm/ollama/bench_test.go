package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// BenchmarkDecode measures decoding one typical answer (llmtest.SampleReply)
// from memory: the whole JSON body, and the whole stream.
func BenchmarkDecode(b *testing.B) {
	p := New(Options{BaseURL: "http://127.0.0.1:1"})
	body := llmtest.Render(llmtest.Ollama, false, llmtest.SampleReply())
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if out, err := p.decodeWhole(body); err != nil || len(out.ToolCalls) != 2 {
				b.Fatal(err)
			}
		}
	})
	stream := llmtest.Render(llmtest.Ollama, true, llmtest.SampleReply())
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(stream)))
		for b.Loop() {
			resp := &http.Response{Body: io.NopCloser(bytes.NewReader(stream))}
			if out, err := p.readStream(context.Background(), resp, &accumulator{}); err != nil || len(out.ToolCalls) != 2 {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncode measures building and encoding a 31-message request.
func BenchmarkEncode(b *testing.B) {
	msgs := []llm.Message{{Role: "system", Content: strings.Repeat("You are a careful engineer. ", 40)}}
	for i := 0; i < 10; i++ {
		msgs = append(msgs,
			llm.Message{Role: "user", Content: strings.Repeat("Please look at the code. ", 20)},
			llm.Message{Role: "assistant", Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: "c", Name: "fs__read_file", Arguments: `{"path":"a.go"}`}}},
			llm.Message{Role: "tool", ToolCallID: "c", Content: strings.Repeat("package main\n", 50)})
	}
	req := llm.Request{Model: "m", Messages: msgs}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(buildRequest(req)); err != nil {
			b.Fatal(err)
		}
	}
}
