// Package providertest is what the tests of every provider package
// (openai, anthropic, ollama, google) share: the request golden files, the
// table of failure classes run against [llmtest.Server], a call answered
// whole and streamed, the classification check of the fuzz targets, the
// decode benchmark
// (one typical answer from memory, as a whole body and as a stream) and
// the encode benchmark with the request it is measured on, and replaying
// recorded answers.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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

// Encode benchmarks building the wire request for [Request] with build
// and encoding it as JSON.
func Encode[W any](b *testing.B, build func(llm.Request) W) {
	req := Request()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(build(req)); err != nil {
			b.Fatal(err)
		}
	}
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

// Replay returns a server whose next answer is the recorded body
// testdata/name, byte for byte; it is closed when the test ends.
func Replay(t testing.TB, name string) *llmtest.Server {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Push(llmtest.Reply{Body: string(raw)})
	return srv
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

// ErrorCase is one row of a provider's table of failure classes: the
// reply the test server gives and the classified error the call must
// return.
type ErrorCase struct {
	// Name names the subtest.
	Name string
	// Reply is what the server answers.
	Reply llmtest.Reply
	// StreamOnly skips the non-streaming call (a fault only a stream has).
	StreamOnly bool
	// Class and Status are the [llm.Error] fields wanted.
	Class  llm.Class
	Status int
	// MinRetry is the least RetryAfter wanted.
	MinRetry time.Duration
}

// ErrorClasses runs every case against a fresh [llmtest.Server], as a
// whole JSON answer (unless StreamOnly) and as a stream, in subtests
// NAME/json and NAME/stream. complete makes one call through the provider
// set up for srv and returns its error, which must be an [llm.Error] of
// the case's class, status and least retry delay, and must not hold key
// (when key is set).
func ErrorClasses(t *testing.T, cases []ErrorCase, key string, complete func(srv *llmtest.Server, stream bool) error) {
	t.Helper()
	for _, tc := range cases {
		for _, stream := range []bool{false, true} {
			if tc.StreamOnly && !stream {
				continue
			}
			t.Run(tc.Name+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				srv := llmtest.NewServer()
				defer srv.Close()
				srv.Push(tc.Reply)
				e := llm.AsError(complete(srv, stream))
				if e == nil {
					t.Fatal("no error")
				}
				if e.Class != tc.Class || e.Status != tc.Status || e.RetryAfter < tc.MinRetry {
					t.Fatalf("got %s/%d retry %v (%v), want %s/%d retry ≥%v", e.Class, e.Status, e.RetryAfter, e, tc.Class, tc.Status, tc.MinRetry)
				}
				if key != "" && strings.Contains(e.Error(), key) {
					t.Fatalf("API key in error: %v", e)
				}
			})
		}
	}
}

// Complete runs reply through the provider call sets up for a fresh
// server, as a whole answer and as a stream: the response must be want,
// and the stream's deltas must spell its text and its reasoning. The
// request is one user message to model "m".
func Complete(t *testing.T, reply llmtest.Reply, want llm.Response, call func(srv *llmtest.Server, req llm.Request) (llm.Response, error)) {
	t.Helper()
	var wantReasoning strings.Builder
	for _, r := range want.Reasoning {
		wantReasoning.WriteString(r.Text)
	}
	for _, stream := range []bool{false, true} {
		srv := llmtest.NewServer()
		srv.Push(reply)
		var text, reasoning strings.Builder
		req := llm.Request{Model: "m", Stream: stream, Messages: []llm.Message{{Role: "user", Content: "x"}},
			OnDelta: func(d llm.Delta) { text.WriteString(d.Text); reasoning.WriteString(d.Reasoning) }}
		got, err := call(srv, req)
		srv.Close()
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream=%v:\n got %+v\nwant %+v", stream, got, want)
		}
		if stream && (text.String() != want.Content || reasoning.String() != wantReasoning.String()) {
			t.Errorf("deltas %q / %q", text.String(), reasoning.String())
		}
	}
}

// Classified fails the test when err is set but is not a classified
// [llm.Error]: what every decoder's fuzz target checks.
func Classified(t *testing.T, err error) {
	t.Helper()
	var e *llm.Error
	if err != nil && (!errors.As(err, &e) || e.Class == "") {
		t.Fatalf("unclassified error %T %v", err, err)
	}
}
