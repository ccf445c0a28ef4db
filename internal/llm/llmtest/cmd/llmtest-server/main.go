// Command llmtest-server runs the llmtest scripted provider server as a
// process, for tests and demos driven from a shell:
//
//	llmtest-server -replies replies.json [-addr 127.0.0.1:0] [-record requests.jsonl] [-loop]
//
// replies.json is a JSON array of llmtest.Reply objects ({"text": …,
// "toolCalls": [{"name", "arguments"}], "status": 429, "header":
// {"Retry-After": "2"}, "fault": "hang", …}), answered in order to any of
// the three wire formats. With -loop the list starts over when it runs out;
// without it, later requests get HTTP 500. The server prints its root URL
// on the first line of stdout (append /v1 for OpenAI and Anthropic, /api
// for Ollama), appends each request to -record as a JSON line, and stops on
// SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/salve-dev/salve/internal/llm/llmtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// recorded is one request line of the -record file.
type recorded struct {
	Wire   llmtest.Wire    `json:"wire"`
	Path   string          `json:"path"`
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Body   json.RawMessage `json:"body"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("llmtest-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	repliesPath := fs.String("replies", "", "JSON array of replies (required)")
	recordPath := fs.String("record", "", "append each request to this file as a JSON line")
	loop := fs.Bool("loop", false, "start the replies over when they run out")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *repliesPath == "" {
		fmt.Fprintln(stderr, "llmtest-server: -replies is required")
		return 2
	}
	data, err := os.ReadFile(*repliesPath)
	if err != nil {
		fmt.Fprintln(stderr, "llmtest-server:", err)
		return 1
	}
	var replies []llmtest.Reply
	if err := json.Unmarshal(data, &replies); err != nil {
		fmt.Fprintf(stderr, "llmtest-server: %s: %v\n", *repliesPath, err)
		return 1
	}
	var record io.Writer = io.Discard
	if *recordPath != "" {
		f, err := os.OpenFile(*recordPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "llmtest-server:", err)
			return 1
		}
		defer f.Close()
		record = f
	}
	srv, err := llmtest.Listen(*addr)
	if err != nil {
		fmt.Fprintln(stderr, "llmtest-server:", err)
		return 1
	}
	defer srv.Close()
	srv.Handle(newScript(replies, *loop, record, stderr).next)
	fmt.Fprintln(stdout, srv.URL)
	<-ctx.Done()
	return 0
}

// script hands out the replies in order and records each request.
type script struct {
	mu      sync.Mutex
	replies []llmtest.Reply
	i       int
	loop    bool
	record  *json.Encoder
	stderr  io.Writer
}

func newScript(replies []llmtest.Reply, loop bool, record, stderr io.Writer) *script {
	return &script{replies: replies, loop: loop, record: json.NewEncoder(record), stderr: stderr}
}

func (s *script) next(r llmtest.Request) llmtest.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	body := json.RawMessage(r.Body)
	if !json.Valid(body) {
		body, _ = json.Marshal(string(r.Body))
	}
	if err := s.record.Encode(recorded{Wire: r.Wire, Path: r.Path, Model: r.Model, Stream: r.Stream, Body: body}); err != nil {
		fmt.Fprintln(s.stderr, "llmtest-server: record:", err)
	}
	if s.i >= len(s.replies) && s.loop && len(s.replies) > 0 {
		s.i = 0
	}
	if s.i >= len(s.replies) {
		return llmtest.Reply{Status: 500, ErrorType: "server_error", ErrorMessage: "llmtest-server: no scripted reply left"}
	}
	rep := s.replies[s.i]
	s.i++
	return rep
}
