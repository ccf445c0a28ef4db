package headend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
)

// fakeRun answers with "echo: PROMPT" (or JSON for format json), after
// writing one progress line; block, when set, holds it until released or
// cancelled.
type fakeRun struct {
	mu       sync.Mutex
	requests []Request
	block    chan struct{}
	started  chan string
	// cancelled receives the id of each session whose context ended.
	cancelled chan string
}

func (f *fakeRun) run(ctx context.Context, req Request) (contract.AIAgentResult, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if f.started != nil {
		f.started <- req.ID
	}
	if req.Progress != nil {
		fmt.Fprintf(req.Progress, "progress: working on %s\n", req.Prompt)
	}
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			if f.cancelled != nil {
				f.cancelled <- req.ID
			}
			return contract.AIAgentResult{Error: "session cancelled: " + ctx.Err().Error()}, nil
		}
	}
	rep := &contract.FinalReport{Status: contract.ReportSuccess, Format: "markdown"}
	if req.Format == "json" {
		rep.Format = "json"
		rep.ContentJSON = json.RawMessage(`{"echo":` + mustJSON(req.Prompt) + `}`)
	} else {
		text := "echo: " + req.Prompt
		rep.Content = &text
	}
	return contract.AIAgentResult{Success: true, FinalReport: rep, Accounting: []contract.AccountingEntry{
		{Type: contract.AccountingLLM, Tokens: &contract.TokenUsage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}},
		{Type: contract.AccountingLLM, Tokens: &contract.TokenUsage{InputTokens: 20, OutputTokens: 7}},
		{Type: contract.AccountingTool},
	}}, nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// failAfter caps every wait on an event: it is reached only when the
// event never comes, so it is long enough for the busiest machine.
const failAfter = 2 * time.Minute

// harness runs Serve in the background with the given specs.
type harness struct {
	addrs  map[string]string
	cancel context.CancelFunc
	// done is closed when Serve returned err.
	done chan struct{}
	// stopping is closed once shutdown has begun.
	stopping chan struct{}
	err      error
}

func start(t *testing.T, opts Options, specs ...Spec) *harness {
	t.Helper()
	h := &harness{addrs: map[string]string{}, done: make(chan struct{}), stopping: make(chan struct{})}
	opts.Stopping = func() { close(h.stopping) }
	ready := make(chan struct{})
	var mu sync.Mutex
	n := 0
	opts.Ready = func(kind, addr string) {
		mu.Lock()
		defer mu.Unlock()
		h.addrs[kind] = addr
		n++
		if n == len(specs) {
			close(ready)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.err = Serve(ctx, opts, specs); close(h.done) }()
	select {
	case <-ready:
	case <-h.done:
		t.Fatalf("Serve: %v", h.err)
	case <-time.After(failAfter):
		t.Fatal("headends did not start")
	}
	t.Cleanup(func() { h.stop(t) })
	return h
}

// waitStopping waits until the server's shutdown has begun.
func waitStopping(t *testing.T, h *harness) {
	t.Helper()
	select {
	case <-h.stopping:
	case <-time.After(failAfter):
		t.Fatal("the shutdown never began")
	}
}

func (h *harness) stop(t *testing.T) {
	t.Helper()
	h.cancel()
	select {
	case <-h.done:
		if h.err != nil {
			t.Errorf("Serve: %v", h.err)
		}
	case <-time.After(failAfter):
		t.Error("Serve did not return after cancel")
	}
}

func agents(f *fakeRun) []Agent {
	return []Agent{
		{Name: "chat", Description: "A chat agent", Run: f.run},
		{Name: "extract", Description: "Extracts JSON", JSON: true, Schema: json.RawMessage(`{"type":"object"}`), Run: f.run},
	}
}

func post(t *testing.T, url, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		kind, value string
		want        Spec
		err         string
	}{
		{KindOpenAI, "8082", Spec{Kind: KindOpenAI, Port: 8082}, ""},
		{KindAPI, "0", Spec{Kind: KindAPI}, ""},
		{KindAnthropic, "70000", Spec{}, "not a port"},
		{KindOpenAI, "x", Spec{}, "not a port"},
		{KindMCP, "stdio", Spec{Kind: KindMCP, Transport: "stdio"}, ""},
		{KindMCP, "http:3000", Spec{Kind: KindMCP, Transport: "http", Port: 3000}, ""},
		{KindMCP, "sse:3001", Spec{Kind: KindMCP, Transport: "sse", Port: 3001}, ""},
		{KindMCP, "ws:3002", Spec{Kind: KindMCP, Transport: "ws", Port: 3002}, ""},
		{KindMCP, "tcp:1", Spec{}, "unknown transport"},
		{KindMCP, "3000", Spec{}, "expected stdio"},
		{KindEmbed, "1", Spec{Kind: KindEmbed, Port: 1, Profile: "default"}, ""},
		{KindEmbed, "support:8090", Spec{Kind: KindEmbed, Port: 8090, Profile: "support"}, ""},
		{KindEmbed, "a b:8090", Spec{}, "profile name"},
		{KindEmbed, "support:", Spec{}, "NAME:PORT or PORT"},
		{KindSlack, "", Spec{Kind: KindSlack}, ""},
		{"telegram", "1", Spec{}, "unknown headend"},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"="+tt.value, func(t *testing.T) {
			got, err := ParseSpec(tt.kind, tt.value)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrSpec) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestServeRefusesBadAgents(t *testing.T) {
	f := &fakeRun{}
	tests := []struct {
		name   string
		agents []Agent
		err    string
	}{
		{"none", nil, "at least one --agent"},
		{"dup", []Agent{{Name: "a", Run: f.run}, {Name: "a", Run: f.run}}, "two agents are named"},
		{"bad name", []Agent{{Name: "a/b", Run: f.run}}, "agent name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Serve(context.Background(), Options{Agents: tt.agents}, []Spec{{Kind: KindAPI}})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f), MaxBodyBytes: 1024}, Spec{Kind: KindOpenAI})
	url := "http://" + h.addrs[KindOpenAI] + "/v1/chat/completions"
	tests := []struct {
		name   string
		body   string
		status int
		want   string
	}{
		{"invalid json", `{"model":`, 400, "invalid JSON"},
		{"empty body", ``, 400, "empty body"},
		{"not an object", `[1,2]`, 400, "invalid JSON"},
		{"trailing data", `{"model":"chat","messages":[{"role":"user","content":"x"}]} {}`, 400, "trailing data"},
		{"missing model", `{"messages":[{"role":"user","content":"x"}]}`, 400, "model is required"},
		{"unknown model", `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}]}`, 404, "does not exist"},
		{"missing messages", `{"model":"chat"}`, 400, "non-empty array"},
		{"last not user", `{"model":"chat","messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}`, 400, "role user"},
		{"empty prompt", `{"model":"chat","messages":[{"role":"user","content":"  "}]}`, 400, "no text"},
		{"bad content", `{"model":"chat","messages":[{"role":"user","content":42}]}`, 400, "content must be"},
		{"bad role", `{"model":"chat","messages":[{"role":"wizard","content":"a"},{"role":"user","content":"x"}]}`, 400, "unknown role"},
		{"bad response_format", `{"model":"chat","response_format":{"type":"xml"},"messages":[{"role":"user","content":"x"}]}`, 400, "response_format"},
		{"huge body", `{"model":"chat","messages":[{"role":"user","content":"` + strings.Repeat("a", 4096) + `"}]}`, 413, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, b := post(t, url, tt.body, nil)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			var e struct {
				Error struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if err := json.Unmarshal(b, &e); err != nil || e.Error.Type == "" {
				t.Fatalf("not the OpenAI error shape: %s", b)
			}
			if !strings.Contains(e.Error.Message, tt.want) {
				t.Fatalf("message %q does not contain %q", e.Error.Message, tt.want)
			}
		})
	}
	if len(f.requests) != 0 {
		t.Fatalf("bad requests ran %d sessions", len(f.requests))
	}
}

func TestOpenAIChatAndHistory(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindOpenAI})
	base := "http://" + h.addrs[KindOpenAI]
	body := `{"model":"chat","messages":[{"role":"system","content":"ignored"},{"role":"user","content":"first"},
		{"role":"assistant","content":[{"type":"text","text":"answer one"}]},{"role":"user","content":[{"type":"text","text":"second"}]}]}`
	resp, b := post(t, base+"/v1/chat/completions", body, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var out struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message      struct{ Role, Content string } `json:"message"`
			FinishReason string                         `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			Total      int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Object != "chat.completion" || out.Model != "chat" || len(out.Choices) != 1 ||
		out.Choices[0].Message.Content != "echo: second" || out.Choices[0].Message.Role != "assistant" || out.Choices[0].FinishReason != "stop" {
		t.Fatalf("bad completion: %s", b)
	}
	if out.Usage.Prompt != 30 || out.Usage.Completion != 12 || out.Usage.Total != 42 {
		t.Fatalf("usage %+v, want 30/12/42", out.Usage)
	}
	req := f.requests[0]
	if resp.Header.Get("X-Request-Id") != req.ID || out.ID != "chatcmpl-"+req.ID {
		t.Fatalf("request id not carried: header %q id %q req %q", resp.Header.Get("X-Request-Id"), out.ID, req.ID)
	}
	want := []contract.Message{{Role: "user", Content: "first"}, {Role: "assistant", Content: "answer one"}}
	if fmt.Sprint(req.History) != fmt.Sprint(want) || req.Prompt != "second" || req.Headend != KindOpenAI {
		t.Fatalf("request %+v", req)
	}
	// response_format json_schema asks for JSON.
	resp, b = post(t, base+"/v1/chat/completions", `{"model":"chat","response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}},"messages":[{"role":"user","content":"j"}]}`, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `{\"echo\":\"j\"}`) {
		t.Fatalf("json_schema: %d %s", resp.StatusCode, b)
	}
	// GET /v1/models lists the agents.
	r, err := http.Get(base + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(mb), `"id":"chat"`) || !strings.Contains(string(mb), `"id":"extract"`) {
		t.Fatalf("models: %s", mb)
	}
	for path, status := range map[string]int{"/v1/models/chat": 200, "/v1/models/nope": 404} {
		r, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != status {
			t.Errorf("%s: %d, want %d", path, r.StatusCode, status)
		}
	}
}

// readSSE returns the data lines of an event stream.
func readSSE(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestOpenAIStream(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindOpenAI})
	resp, err := http.Post("http://"+h.addrs[KindOpenAI]+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"chat","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	data := readSSE(t, resp.Body)
	if len(data) < 5 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream: %q", data)
	}
	joined := strings.Join(data, "\n")
	for _, want := range []string{`"reasoning_content":"progress: working on hi\n"`, `"content":"echo: hi"`, `"finish_reason":"stop"`, `"total_tokens":42`} {
		if !strings.Contains(joined, want) {
			t.Errorf("stream lacks %s:\n%s", want, joined)
		}
	}
}

func TestAnthropicMessages(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f), Token: "s3cret"}, Spec{Kind: KindAnthropic})
	url := "http://" + h.addrs[KindAnthropic] + "/v1/messages"
	body := `{"model":"chat","max_tokens":64,"system":"x","messages":[{"role":"user","content":"hello"}]}`
	if resp, b := post(t, url, body, nil); resp.StatusCode != 401 || !strings.Contains(string(b), "authentication_error") {
		t.Fatalf("no key: %d %s", resp.StatusCode, b)
	}
	if resp, b := post(t, url, body, map[string]string{"x-api-key": "wrong"}); resp.StatusCode != 401 {
		t.Fatalf("wrong key: %d %s", resp.StatusCode, b)
	}
	resp, b := post(t, url, body, map[string]string{"x-api-key": "s3cret"})
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"text":"echo: hello"`) || !strings.Contains(string(b), `"input_tokens":30`) {
		t.Fatalf("message: %d %s", resp.StatusCode, b)
	}
	if resp, b := post(t, url, `{"model":"nope","messages":[{"role":"user","content":"x"}]}`, map[string]string{"authorization": "Bearer s3cret"}); resp.StatusCode != 404 || !strings.Contains(string(b), "not_found_error") {
		t.Fatalf("unknown model: %d %s", resp.StatusCode, b)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"model":"chat","stream":true,"messages":[{"role":"user","content":"s"}]}`))
	req.Header.Set("x-api-key", "s3cret")
	sresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sresp.Body.Close()
	joined := strings.Join(readSSE(t, sresp.Body), "\n")
	for _, want := range []string{`"type":"message_start"`, `"type":"thinking_delta"`, `"text":"echo: s"`, `"stop_reason":"end_turn"`, `"type":"message_stop"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("stream lacks %s:\n%s", want, joined)
		}
	}
}

func TestAPI(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindAPI})
	base := "http://" + h.addrs[KindAPI]
	get := func(path string) (int, map[string]any) {
		r, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %s", path, b)
		}
		return r.StatusCode, m
	}
	tests := []struct {
		path   string
		status int
		check  func(map[string]any) bool
	}{
		{"/health", 200, func(m map[string]any) bool { return m["status"] == "ok" }},
		{"/v1/chat?q=hello", 200, func(m map[string]any) bool {
			return m["success"] == true && m["output"] == "echo: hello" && m["error"] == nil && m["finalReport"] != nil
		}},
		{"/v1/chat?q=hello&format=json", 200, func(m map[string]any) bool { return m["output"] == `{"echo":"hello"}` }},
		{"/v1/chat", 400, func(m map[string]any) bool {
			return m["success"] == false && strings.Contains(fmt.Sprint(m["error"]), "q (the prompt)")
		}},
		{"/v1/nope?q=x", 404, func(m map[string]any) bool { return strings.Contains(fmt.Sprint(m["error"]), "unknown agent") }},
		{"/v1/chat?q=x&format=html", 400, func(m map[string]any) bool { return strings.Contains(fmt.Sprint(m["error"]), "unknown format") }},
		{"/v1/chat?q=x&format=json&schema=@/etc/passwd", 400, func(m map[string]any) bool { return strings.Contains(fmt.Sprint(m["error"]), "not JSON") }},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, m := get(tt.path)
			if status != tt.status || !tt.check(m) {
				t.Fatalf("status %d %v", status, m)
			}
		})
	}
}

func TestCapacity(t *testing.T) {
	f := &fakeRun{block: make(chan struct{}), started: make(chan string, 4)}
	h := start(t, Options{Agents: agents(f), QueueTimeout: 300 * time.Millisecond}, Spec{Kind: KindOpenAI, Concurrency: 1, Queue: 1})
	url := "http://" + h.addrs[KindOpenAI] + "/v1/chat/completions"
	body := `{"model":"chat","messages":[{"role":"user","content":"x"}]}`
	type result struct {
		status int
		retry  string
	}
	results := make(chan result, 64)
	sent := 0
	send := func() {
		sent++
		go func() {
			resp, _ := post(t, url, body, nil)
			results <- result{resp.StatusCode, resp.Header.Get("Retry-After")}
		}()
	}
	send()
	<-f.started // the slot is taken
	// The queue holds one waiter, which gives up after the queue timeout
	// with 503; while it waits, a third request finds the queue full: 429.
	send()
	var got []result
	deadline := time.After(failAfter)
	for len(got) < 2 && sent < cap(results) {
		send()
		select {
		case r := <-results:
			got = append(got, r)
		case <-deadline:
			t.Fatal("no capacity answers")
		}
	}
	seen := map[int]bool{}
	for _, r := range got {
		if r.retry == "" {
			t.Errorf("status %d without Retry-After", r.status)
		}
		seen[r.status] = true
	}
	if !seen[429] && !seen[503] {
		t.Fatalf("capacity answers %+v, want 429 or 503", got)
	}
	close(f.block)
	// Every request sent gets one of those answers.
	for range sent - len(got) {
		select {
		case r := <-results:
			if r.status != 200 && r.status != 429 && r.status != 503 {
				t.Fatalf("status %d", r.status)
			}
		case <-time.After(failAfter):
			t.Fatal("a request was never answered")
		}
	}
}

func TestClientDisconnectCancelsSession(t *testing.T) {
	f := &fakeRun{block: make(chan struct{}), started: make(chan string, 1), cancelled: make(chan string, 1)}
	defer close(f.block)
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindOpenAI})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+h.addrs[KindOpenAI]+"/v1/chat/completions",
		strings.NewReader(`{"model":"chat","stream":true,"messages":[{"role":"user","content":"x"}]}`))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	id := <-f.started
	cancel()
	select {
	case got := <-f.cancelled:
		if got != id {
			t.Fatalf("cancelled %s, want %s", got, id)
		}
	case <-time.After(failAfter):
		t.Fatal("the session was not cancelled when its client went away")
	}
	<-errc
}

func TestSlowClientIsDropped(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f), ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 300 * time.Millisecond}, Spec{Kind: KindOpenAI})
	for _, partial := range []string{
		"POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n",                                               // headers never end
		"POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"model\":\"chat\"", // body never ends
	} {
		conn, err := net.Dial("tcp", h.addrs[KindOpenAI])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, partial); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		b, err := io.ReadAll(conn)
		conn.Close()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server kept a slow client's connection open (%q)", partial)
		}
		if bytes.Contains(b, []byte("200 OK")) {
			t.Fatalf("slow client got an answer: %s", b)
		}
	}
	if len(f.requests) != 0 {
		t.Fatal("a slow client started a session")
	}
}

func TestShutdownLetsSessionsFinishOrCancels(t *testing.T) {
	for _, finish := range []bool{true, false} {
		t.Run(fmt.Sprintf("finish=%v", finish), func(t *testing.T) {
			f := &fakeRun{block: make(chan struct{}), started: make(chan string, 1), cancelled: make(chan string, 1)}
			grace := failAfter // the session finishes long before
			if !finish {
				grace = 200 * time.Millisecond
			}
			h := start(t, Options{Agents: agents(f), Grace: grace}, Spec{Kind: KindAPI})
			base := "http://" + h.addrs[KindAPI]
			type answer struct {
				status int
				body   string
			}
			ans := make(chan answer, 1)
			go func() {
				r, err := http.Get(base + "/v1/chat?q=long")
				if err != nil {
					ans <- answer{0, err.Error()}
					return
				}
				b, _ := io.ReadAll(r.Body)
				r.Body.Close()
				ans <- answer{r.StatusCode, string(b)}
			}()
			<-f.started
			h.cancel() // SIGTERM
			// New requests are refused while shutting down.
			waitStopping(t, h)
			if r, err := http.Get(base + "/v1/chat?q=late"); err == nil {
				r.Body.Close()
				if r.StatusCode == 200 {
					t.Error("a request after shutdown began ran")
				}
			}
			if finish {
				close(f.block)
			}
			select {
			case a := <-ans:
				switch {
				case finish && (a.status != 200 || !strings.Contains(a.body, "echo: long")):
					t.Fatalf("running session did not finish: %d %s", a.status, a.body)
				case !finish && (a.status != 500 || !strings.Contains(a.body, "cancelled by shutdown")):
					t.Fatalf("session past the grace was not reported cancelled: %d %s", a.status, a.body)
				}
			case <-time.After(failAfter):
				t.Fatal("the client never got an answer")
			}
			select {
			case <-h.done:
			case <-time.After(failAfter):
				t.Fatal("Serve did not return")
			}
		})
	}
}

func FuzzConversation(f *testing.F) {
	f.Add(`[{"role":"user","content":"hi"}]`)
	f.Add(`[{"role":"system","content":"s"},{"role":"assistant","content":[{"type":"text","text":"a"}]},{"role":"user","content":[{"type":"image_url"},{"type":"text","text":"q"}]}]`)
	f.Add(`[{"role":"user","content":null}]`)
	f.Fuzz(func(t *testing.T, s string) {
		var msgs []message
		if json.Unmarshal([]byte(s), &msgs) != nil {
			return
		}
		history, prompt, err := conversation(msgs)
		if err != nil {
			return
		}
		if strings.TrimSpace(prompt) == "" {
			t.Fatal("empty prompt accepted")
		}
		for _, m := range history {
			if m.Role != "user" && m.Role != "assistant" {
				t.Fatalf("history role %q", m.Role)
			}
		}
	})
}

// TestLongSessionOutlivesReadTimeout: the body read timeout must not
// cancel a session that runs longer than it, plain or streamed.
func TestLongSessionOutlivesReadTimeout(t *testing.T) {
	f := &fakeRun{block: make(chan struct{}), started: make(chan string, 2), cancelled: make(chan string, 2)}
	h := start(t, Options{Agents: agents(f), ReadTimeout: 200 * time.Millisecond}, Spec{Kind: KindOpenAI}, Spec{Kind: KindMCP, Transport: "http"})
	go func() {
		<-f.started
		<-f.started
		time.Sleep(time.Second) // five read timeouts
		close(f.block)
	}()
	var wg sync.WaitGroup
	for _, stream := range []bool{false, true} {
		wg.Add(1)
		go func(stream bool) {
			defer wg.Done()
			resp, b := post(t, "http://"+h.addrs[KindOpenAI]+"/v1/chat/completions",
				fmt.Sprintf(`{"model":"chat","stream":%v,"messages":[{"role":"user","content":"slow"}]}`, stream), nil)
			if resp.StatusCode != 200 || !strings.Contains(string(b), "echo: slow") {
				t.Errorf("stream=%v: %d %s", stream, resp.StatusCode, b)
			}
		}(stream)
	}
	wg.Wait()
	select {
	case id := <-f.cancelled:
		t.Fatalf("session %s was cancelled", id)
	default:
	}
}

// FuzzCompletionsBody feeds hostile bodies to the completions handlers:
// never a panic, always a JSON answer with a known status.
func FuzzCompletionsBody(f *testing.F) {
	f.Add(`{"model":"chat","messages":[{"role":"user","content":"hi"}]}`)
	f.Add(`{"model":"chat","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`)
	f.Add(`{"model":"chat","response_format":{"type":"json_schema","json_schema":{"schema":{"type":"object"}}},"messages":[{"role":"user","content":"j"}]}`)
	f.Add(`{"model":null,"messages":{}}`)
	s := fuzzServer(f)
	lim := newLimiter(4, 4, time.Second, s.closing)
	handlers := map[string]http.Handler{"/v1/chat/completions": s.openAIHandler(lim), "/v1/messages": s.anthropicHandler(lim)}
	f.Fuzz(func(t *testing.T, body string) {
		for path, h := range handlers {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
			switch rec.Code {
			case 200, 400, 404, 413:
			default:
				t.Fatalf("%s: status %d for %q", path, rec.Code, body)
			}
			if rec.Code != 200 && !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s: error body is not JSON: %q", path, rec.Body.String())
			}
		}
	})
}

// TestStalledStreamReaderCancelsSession: a client that stops reading its
// stream cannot block the session; past the write timeout it counts as
// gone and the session is cancelled.
func TestStalledStreamReaderCancelsSession(t *testing.T) {
	ended := make(chan error, 1)
	run := func(ctx context.Context, req Request) (contract.AIAgentResult, error) {
		line := strings.Repeat("x", 1023) + "\n"
		for i := 0; i < 64<<10 && ctx.Err() == nil; i++ { // up to 64 MiB of progress
			_, _ = io.WriteString(req.Progress, line)
		}
		ended <- ctx.Err()
		return contract.AIAgentResult{Error: "stopped"}, nil
	}
	h := start(t, Options{Agents: []Agent{{Name: "chat", Run: run}}, WriteTimeout: 300 * time.Millisecond}, Spec{Kind: KindOpenAI})
	conn, err := net.Dial("tcp", h.addrs[KindOpenAI])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"chat","stream":true,"messages":[{"role":"user","content":"x"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// Never read.
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("the session wrote its whole progress to a client that never read")
		}
	case <-time.After(failAfter):
		t.Fatal("a stalled reader blocked its session")
	}
}

// TestCrossOriginRefused: a web page of another origin cannot make a
// browser start sessions on a loopback headend.
func TestCrossOriginRefused(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindOpenAI}, Spec{Kind: KindAPI})
	body := `{"model":"chat","messages":[{"role":"user","content":"x"}]}`
	tests := []struct {
		name   string
		method string
		url    string
		hdr    map[string]string
		status int
	}{
		{"text/plain post from a page", http.MethodPost, "http://" + h.addrs[KindOpenAI] + "/v1/chat/completions",
			map[string]string{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}, 403},
		{"origin without fetch metadata", http.MethodPost, "http://" + h.addrs[KindOpenAI] + "/v1/chat/completions",
			map[string]string{"Origin": "http://evil.example"}, 403},
		{"rest get from a page", http.MethodGet, "http://" + h.addrs[KindAPI] + "/v1/chat?q=x",
			map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"program", http.MethodPost, "http://" + h.addrs[KindOpenAI] + "/v1/chat/completions", nil, 200},
		{"same origin page", http.MethodGet, "http://" + h.addrs[KindAPI] + "/v1/chat?q=x", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, tt.url, strings.NewReader(body))
			for k, v := range tt.hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
	if len(f.requests) != 2 {
		t.Fatalf("%d sessions ran, want 2", len(f.requests))
	}
}

// TestListenAddress: loopback by default; ListenAddress binds elsewhere.
func TestListenAddress(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindAPI})
	if host, _, _ := net.SplitHostPort(h.addrs[KindAPI]); host != "127.0.0.1" {
		t.Fatalf("default bind %s, want loopback", h.addrs[KindAPI])
	}
	h2 := start(t, Options{Agents: agents(f), ListenAddress: "127.0.0.2"}, Spec{Kind: KindAPI})
	if host, _, _ := net.SplitHostPort(h2.addrs[KindAPI]); host != "127.0.0.2" {
		t.Fatalf("bind %s, want 127.0.0.2", h2.addrs[KindAPI])
	}
	r, err := http.Get("http://" + h2.addrs[KindAPI] + "/health")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("health %d", r.StatusCode)
	}
}
