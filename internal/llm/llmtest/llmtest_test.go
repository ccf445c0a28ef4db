package llmtest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// TestWireGolden pins the exact bytes the server sends for one reply in
// every wire format, streamed and not.
func TestWireGolden(t *testing.T) {
	reply := Reply{
		Text: "Hi — ✓", Reasoning: "think", ToolCalls: []ToolCall{{Name: "f", Arguments: `{"a": 1}`}},
		Usage: &Usage{Input: 3, Output: 4, CacheRead: 5, CacheWrite: 6}, ChunkSize: 4,
	}
	cases := []struct {
		name, path, body string
	}{
		{"openai-json", "/v1/chat/completions", `{"model":"m"}`},
		{"openai-stream", "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`},
		{"anthropic-json", "/v1/messages", `{"model":"m"}`},
		{"anthropic-stream", "/v1/messages", `{"model":"m","stream":true}`},
		{"ollama-json", "/api/chat", `{"model":"m","stream":false}`},
		{"ollama-stream", "/api/chat", `{"model":"m"}`},
		{"openai-responses-json", "/v1/responses", `{"model":"m"}`},
		{"openai-responses-stream", "/v1/responses", `{"model":"m","stream":true}`},
		{"gemini-json", "/v1beta/models/m:generateContent", `{"contents":[]}`},
		{"gemini-stream", "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := NewServer()
			defer srv.Close()
			srv.Push(reply)
			resp, body := post(t, srv.URL+c.path, c.body)
			got := fmt.Sprintf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if string(want) != got {
				t.Fatalf("%s differs (go test -update rewrites it):\n%s", golden, got)
			}
		})
	}
}

func TestQueueHandlerAndRecording(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	resp, _ := post(t, srv.URL+"/v1/unknown", `{}`)
	if resp.StatusCode != 404 {
		t.Fatalf("unknown endpoint: %d", resp.StatusCode)
	}
	resp, body := post(t, srv.OpenAIBaseURL()+"/chat/completions", `{"model":"m"}`)
	if resp.StatusCode != 500 || !bytes.Contains(body, []byte("no scripted reply left")) {
		t.Fatalf("empty queue: %d %s", resp.StatusCode, body)
	}
	srv.Push(Reply{Text: "first"}, Reply{Text: "second"})
	if srv.Pending() != 2 {
		t.Fatalf("pending %d", srv.Pending())
	}
	srv.Handle(func(r Request) Reply { return Reply{Text: "handled " + r.Model} })
	var got []string
	for _, m := range []string{"a", "b", "c"} {
		_, body := post(t, srv.OllamaBaseURL()+"/chat", `{"model":"`+m+`","stream":false}`)
		got = append(got, string(body))
	}
	if !strings.Contains(got[0], `"first"`) || !strings.Contains(got[1], `"second"`) || !strings.Contains(got[2], `"handled c"`) {
		t.Fatalf("answers %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[3].Wire != Ollama || reqs[3].Model != "c" || reqs[3].Stream || reqs[0].Wire != OpenAI {
		t.Fatalf("recorded %+v", reqs)
	}
	if reqs[3].JSON()["model"] != "c" {
		t.Fatalf("JSON %v", reqs[3].JSON())
	}
}

func TestErrorBodiesPerWire(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	want := map[string]string{
		"/v1/chat/completions": `{"error":{"code":"rate_limit_error","message":"Rate limit reached for requests","param":null,"type":"rate_limit_error"}}`,
		"/v1/messages":         `{"error":{"message":"Rate limit reached for requests","type":"rate_limit_error"},"type":"error"}`,
		"/api/chat":            `{"error":"Rate limit reached for requests"}`,
	}
	for path, body := range want {
		srv.Push(RateLimited("Wed, 21 Oct 2026 07:28:00 GMT"))
		resp, got := post(t, srv.URL+path, `{"model":"m"}`)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "Wed, 21 Oct 2026 07:28:00 GMT" || string(got) != body {
			t.Errorf("%s: %d %q %s", path, resp.StatusCode, resp.Header.Get("Retry-After"), got)
		}
	}
}

func TestHangEndsWithClient(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	srv.Push(Reply{Fault: FaultHang}, Reply{Delay: time.Hour})
	for i := 0; i < 2; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.OpenAIBaseURL()+"/chat/completions", strings.NewReader(`{}`))
		_, err := http.DefaultClient.Do(req)
		cancel()
		if err == nil {
			t.Fatalf("request %d answered", i)
		}
	}
}

func TestCloseReleasesHangingHandlers(t *testing.T) {
	srv := NewServer()
	srv.Push(Reply{Fault: FaultHang})
	errc := make(chan error, 1)
	go func() {
		_, err := http.Post(srv.OpenAIBaseURL()+"/chat/completions", "application/json", strings.NewReader(`{}`))
		errc <- err
	}()
	for srv.Pending() > 0 {
		time.Sleep(time.Millisecond)
	}
	srv.Close() // must return although a handler hangs
	if err := <-errc; err == nil {
		t.Fatal("hung request got an answer")
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abcdef", 4, "abcd|ef"},
		{"é✓x", 2, "é|✓|x"},
		{"✓", 1, "✓"},
	}
	for _, tt := range tests {
		if got := strings.Join(split(tt.s, tt.n), "|"); got != tt.want {
			t.Errorf("split(%q,%d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
