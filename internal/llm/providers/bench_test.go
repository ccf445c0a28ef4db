package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

var benchReply = llmtest.SampleReply()

func benchRequest(stream bool) llm.Request {
	msgs := []llm.Message{{Role: "system", Content: strings.Repeat("You are a careful engineer. ", 40)}}
	for i := 0; i < 10; i++ {
		msgs = append(msgs,
			llm.Message{Role: "user", Content: strings.Repeat("Please look at the code. ", 20)},
			llm.Message{Role: "assistant", Content: "Looking.", ToolCalls: []llm.ToolCall{{ID: "c", Name: "fs__read_file", Arguments: `{"path":"a.go"}`}}},
			llm.Message{Role: "tool", ToolCallID: "c", Content: strings.Repeat("package main\n", 50)})
	}
	return llm.Request{Model: "m", Messages: msgs, Stream: stream, Temperature: new(0.2), MaxOutputTokens: 4096,
		Tools: []llm.ToolDef{{Name: "fs__read_file", InputSchema: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
}

// captured holds the bytes llmtest renders for benchReply, per path and
// mode, so that the benchmark server only copies bytes.
type captured struct {
	contentType string
	body        []byte
}

// staticServer answers every request with pre-rendered bytes: the
// benchmarks then measure the client, not the scripted server.
func staticServer(b *testing.B) *httptest.Server {
	b.Helper()
	src := llmtest.NewServer()
	defer src.Close()
	src.Handle(func(llmtest.Request) llmtest.Reply { return benchReply })
	bodies := map[string]captured{}
	for _, path := range []string{"/v1/chat/completions", "/v1/messages", "/api/chat"} {
		for _, stream := range []bool{false, true} {
			req := fmt.Sprintf(`{"model":"m","stream":%v,"stream_options":{"include_usage":true}}`, stream)
			resp, err := http.Post(src.URL+path, "application/json", strings.NewReader(req))
			if err != nil {
				b.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			bodies[fmt.Sprint(path, stream)] = captured{resp.Header.Get("Content-Type"), body}
		}
	}
	// Gemini names the streaming in the path, and its body has no
	// "stream" field.
	for _, path := range []string{"/v1beta/models/m:generateContent", "/v1beta/models/m:streamGenerateContent"} {
		resp, err := http.Post(src.URL+path+"?alt=sse", "application/json", strings.NewReader(`{"contents":[]}`))
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		bodies[fmt.Sprint(path, false)] = captured{resp.Header.Get("Content-Type"), body}
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := io.ReadAll(r.Body)
		c := bodies[fmt.Sprint(r.URL.Path, bytes.Contains(in, []byte(`"stream":true`)))]
		w.Header().Set("Content-Type", c.contentType)
		w.Write(c.body)
	}))
}

// BenchmarkComplete measures one request through each provider against a
// local server that replays pre-rendered answers, streamed and not. The
// transport's own cost is BenchmarkBaselineHTTP; the difference is the
// provider's overhead (encoding, decoding, stream assembly).
func BenchmarkComplete(b *testing.B) {
	srv := staticServer(b)
	defer srv.Close()
	types := []struct{ typ, base string }{
		{"openai-compatible", srv.URL + "/v1"},
		{"anthropic", srv.URL + "/v1"},
		{"ollama", srv.URL + "/api"},
		{"google", srv.URL + "/v1beta"},
	}
	var f Factory
	for _, tt := range types {
		p, err := f.New(Spec{Type: tt.typ, BaseURL: tt.base, APIKey: "k"})
		if err != nil {
			b.Fatal(err)
		}
		for _, stream := range []bool{false, true} {
			mode := map[bool]string{false: "json", true: "stream"}[stream]
			req := benchRequest(stream)
			b.Run(tt.typ+"/"+mode, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					resp, err := p.Complete(context.Background(), req)
					if err != nil || len(resp.ToolCalls) != 2 {
						b.Fatalf("%v %+v", err, resp.ToolCalls)
					}
				}
			})
		}
	}
}

// BenchmarkBaselineHTTP is the floor: a POST of a request body of the same
// size to the same server, with the answer read and dropped and nothing
// encoded or decoded.
func BenchmarkBaselineHTTP(b *testing.B) {
	srv := staticServer(b)
	defer srv.Close()
	payload, err := json.Marshal(benchRequest(false).Messages)
	if err != nil {
		b.Fatal(err)
	}
	for _, stream := range []bool{false, true} {
		body := fmt.Sprintf(`{"stream":%v,"messages":%s}`, stream, payload)
		b.Run(map[bool]string{false: "json", true: "stream"}[stream], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkScripted measures one test-llm turn, with no network.
func BenchmarkScripted(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(`{"id":"s","turns":[{"turn":1,"expectedTemperature":0.2,"response":{"kind":"tool-call",
		"toolCalls":[{"toolName":"fs__read_file","arguments":{"path":"a.go"}}]}}]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	var f Factory
	p, err := f.New(Spec{Type: "test-llm", ScenarioFile: path})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: "s", Temperature: new(0.2), Messages: []llm.Message{{Role: "user", Content: "go"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Complete(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
