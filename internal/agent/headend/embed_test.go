package headend

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// sseEvent is one event of an embed stream.
type sseEvent struct {
	Name string
	Data map[string]any
}

func readEvents(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("data %q: %v", line, err)
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

func doEmbed(t *testing.T, method, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestEmbedChatStream: POST /v1/chat streams client, meta, status,
// report, metrics and done, with the history and the allowed agent.
func TestEmbedChatStream(t *testing.T) {
	f := &fakeRun{}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindEmbed, Profile: "default", Embed: &EmbedConfig{AllowedAgents: []string{"chat"}}})
	base := "http://" + h.addrs[KindEmbed]
	body := `{"message":"  what is up?  ","clientId":"not-a-uuid","agentId":"extract","format":"pipe",
		"history":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"system","content":"x"},{"role":"user","content":""}]}`
	resp := doEmbed(t, "POST", base+"/v1/chat", body, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := readEvents(t, resp.Body)
	var names []string
	for _, e := range evs {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, ","); got != "client,meta,status,report,metrics,done" {
		t.Fatalf("events %s", got)
	}
	if evs[0].Data["isNew"] != true || len(evs[0].Data["clientId"].(string)) != 36 {
		t.Errorf("client %v", evs[0].Data)
	}
	if evs[1].Data["agentId"] != "chat" {
		t.Errorf("an agent outside allowedAgents ran: %v", evs[1].Data)
	}
	if evs[2].Data["now"] != "progress: working on what is up?" {
		t.Errorf("status %v", evs[2].Data)
	}
	if evs[3].Data["chunk"] != "echo: what is up?" || evs[3].Data["index"] != float64(1) {
		t.Errorf("report %v", evs[3].Data)
	}
	if d := evs[5].Data; d["success"] != true || d["reportLength"] != float64(len("echo: what is up?")) {
		t.Errorf("done %v", d)
	}
	if m := evs[5].Data["metrics"].(map[string]any); m["tokensIn"] != float64(30) || m["tokensOut"] != float64(12) || m["toolsRun"] != float64(1) {
		t.Errorf("done metrics %v", m)
	}
	f.mu.Lock()
	req := f.requests[0]
	f.mu.Unlock()
	if len(req.History) != 2 || req.Format != "pipe" || req.Prompt != "what is up?" || req.Headend != KindEmbed {
		t.Errorf("request %+v", req)
	}
}

// TestEmbedHTTP is the table of the embed headend's other answers: static
// files, CORS, errors, the token and the rate limit.
func TestEmbedHTTP(t *testing.T) {
	f := &fakeRun{}
	cfg := &EmbedConfig{CorsOrigins: []string{"https://shop.example"}, RateLimit: &EmbedRateLimit{Enabled: true, RequestsPerMinute: 1}}
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindEmbed, Profile: "support", Embed: cfg})
	base := "http://" + h.addrs[KindEmbed+":support"]
	tok := start(t, Options{Agents: agents(f)}, Spec{Kind: KindEmbed, Profile: "default", Embed: &EmbedConfig{Auth: &EmbedAuth{SignedTokens: &EmbedSignedTokens{Enabled: true, Secret: "s3cret"}}}})
	tokBase := "http://" + tok.addrs[KindEmbed]
	chat := `{"message":"hi"}`
	tests := []struct {
		name, method, url, body string
		hdr                     map[string]string
		status                  int
		header, value, inBody   string
	}{
		{"health", "GET", base + "/health", "", nil, 200, "", "", `"ok"`},
		{"script", "GET", base + "/ai-agent-public.js", "", nil, 200, "Content-Type", "application/javascript; charset=utf-8", "globalThis"},
		{"script from another site", "GET", base + "/ai-agent-public.js", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, 200, "Cache-Control", "public, max-age=3600", "AiAgentChat"},
		{"script not modified", "GET", base + "/ai-agent-public.js", "", map[string]string{"If-None-Match": embedScriptTag}, 304, "", "", ""},
		{"demo page", "GET", base + "/", "", nil, 200, "Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'", "data-ai-agent-chat"},
		{"unknown path", "GET", base + "/nope", "", nil, 404, "", "", `"not_found"`},
		{"preflight of an allowed origin", "OPTIONS", base + "/v1/chat", "", map[string]string{"Origin": "https://shop.example", "Access-Control-Request-Method": "POST"}, 204, "Access-Control-Allow-Origin", "https://shop.example", ""},
		{"preflight of another origin", "OPTIONS", base + "/v1/chat", "", map[string]string{"Origin": "https://evil.example"}, 403, "Access-Control-Allow-Origin", "", `"cors_rejected"`},
		{"post of another origin", "POST", base + "/v1/chat", chat, map[string]string{"Origin": "https://evil.example"}, 403, "", "", `"cors_rejected"`},
		{"post of an allowed origin", "POST", base + "/v1/chat", chat, map[string]string{"Origin": "https://shop.example"}, 200, "Access-Control-Allow-Origin", "https://shop.example", "event: done"},
		{"no message", "POST", base + "/v1/chat", `{"message":"  "}`, nil, 400, "", "", `"invalid_message"`},
		{"rate limited", "POST", base + "/v1/chat", chat, nil, 429, "Retry-After", "1", `"rate_limited"`},
		{"token missing", "POST", tokBase + "/v1/chat", chat, nil, 403, "", "", `"invalid_token"`},
		{"the secret itself", "POST", tokBase + "/v1/chat", chat, map[string]string{"Authorization": "Bearer s3cret"}, 403, "", "", `"invalid_token"`},
		{"signed token given", "POST", tokBase + "/v1/chat", chat, map[string]string{"Authorization": "Bearer " + SignToken("s3cret", time.Now())}, 200, "", "", "event: done"},
		{"token not needed for the page", "GET", tokBase + "/", "", nil, 200, "", "", "ai-agent chat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := doEmbed(t, tt.method, tt.url, tt.body, tt.hdr)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, b)
			}
			if tt.header != "" && resp.Header.Get(tt.header) != tt.value {
				t.Errorf("%s = %q, want %q", tt.header, resp.Header.Get(tt.header), tt.value)
			}
			if !strings.Contains(string(b), tt.inBody) {
				t.Errorf("body lacks %q: %s", tt.inBody, b)
			}
		})
	}
}

// TestEmbedStartErrors: a profile that names an agent not served, or a
// bad origin, stops Serve at start.
func TestEmbedStartErrors(t *testing.T) {
	f := &fakeRun{}
	for _, cfg := range []*EmbedConfig{{AllowedAgents: []string{"nope"}}, {CorsOrigins: []string{"shop.example"}}} {
		err := Serve(t.Context(), Options{Agents: agents(f)}, []Spec{{Kind: KindEmbed, Profile: "p", Embed: cfg}})
		if err == nil || !strings.Contains(err.Error(), "embed.p.") {
			t.Errorf("%+v: err = %v", cfg, err)
		}
	}
}

// FuzzEmbedChatBody: no body makes POST /v1/chat panic or answer other
// than a stream or a JSON error.
func FuzzEmbedChatBody(f *testing.F) {
	f.Add(`{"message":"hi"}`)
	f.Add(`{"message":"hi","clientId":"0123456789abcdef0123456789abcdef0123","history":[{"role":"user","content":"x"}],"format":"pipe","agentId":"extract"}`)
	f.Add(`{"message":7,"history":{}}`)
	f.Add(`{"message":"  "}`)
	s := fuzzServer(f)
	h, _, err := s.embedHandler(Spec{Kind: KindEmbed, Profile: "default"}, newLimiter(4, 4, time.Second, s.closing))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat", strings.NewReader(body)))
		switch {
		case rec.Code == 200:
			if !strings.Contains(rec.Body.String(), "event: done") {
				t.Fatalf("a stream without done for %q", body)
			}
		case rec.Code == 400 || rec.Code == 413:
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("error body is not JSON: %q", rec.Body.String())
			}
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
	})
}

// fuzzServer is a server over fakeRun agents whose handlers a fuzz target
// calls directly.
func fuzzServer(f testing.TB) *server {
	opts := Options{Agents: agents(&fakeRun{}), MaxBodyBytes: 1 << 16}
	opts.withDefaults()
	byName, err := opts.validate()
	if err != nil {
		f.Fatal(err)
	}
	s := &server{opts: opts, agents: byName, closing: make(chan struct{})}
	s.hard, s.hardCancel = context.WithCancel(context.Background())
	return s
}
