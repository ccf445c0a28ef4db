package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/llm"
)

// toolThenReport calls rest__echo on the first request of a session (no
// tool message yet), then reports what the tool said.
type toolThenReport struct {
	mu    sync.Mutex
	calls int
}

func (p *toolThenReport) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	if last.Role != contract.RoleTool {
		return llm.Response{ToolCalls: []llm.ToolCall{{ID: "t1", Name: "rest__echo", Arguments: `{"text":"hi"}`}}, StopReason: "tool_calls"}, nil
	}
	args := fmt.Sprintf(`{"report_format":%q,"report_content":%q}`, req.Session.Format, "tool said "+last.Content)
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: "f", Name: "agent__final_report", Arguments: args}}, StopReason: "tool_calls"}, nil
}

// TestCaching: the agent response cache answers a repeated question
// without a request, a changed question misses, and the tool cache spares
// the REST call of a repeated tool call.
func TestCaching(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		fmt.Fprintf(w, "echo %s #%d", r.URL.Query().Get("text"), n)
	}))
	defer srv.Close()
	cfg := `{"providers":{"p":{"type":"openai-compatible"}},
		"cache":{"backend":"sqlite","sqlite":{"path":"cachedir/c.db"},"maxEntries":100},
		"restTools":{"echo":{"description":"echo","url":"` + srv.URL + `/?text=${parameters.text}","cache":"1h",
			"parametersSchema":{"type":"object","properties":{"text":{"type":"string"}}}}}}`
	e := newEnv(t, cfg)
	llmFake := &toolThenReport{}
	run := func(args ...string) (int, string, string) {
		d := deps{providers: map[string]providerFactory{"openai-compatible": func(providerSpec) (llm.Provider, error) { return llmFake, nil }}}
		var out, errOut bytes.Buffer
		code := runWith(context.Background(), d, append([]string{"--models", "p/m", "--tools", "echo", "--format", "pipe", "--tooling-transport", "native"}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	steps := []struct {
		name            string
		args            []string
		llmCalls, tools int
		out             string
	}{
		{name: "first run", args: []string{"--cache", "1h", "sys", "q1"}, llmCalls: 2, tools: 1, out: "tool said echo hi #1"},
		{name: "same question: response hit", args: []string{"--cache", "1h", "sys", "q1"}, llmCalls: 0, tools: 0, out: "tool said echo hi #1"},
		{name: "other question: tool hit", args: []string{"--cache", "1h", "sys", "q2"}, llmCalls: 2, tools: 0, out: "tool said echo hi #1"},
		{name: "response cache off: tool hit", args: []string{"--cache", "off", "sys", "q1"}, llmCalls: 2, tools: 0, out: "tool said echo hi #1"},
		{name: "other system prompt", args: []string{"--cache", "1h", "sys2", "q1"}, llmCalls: 2, tools: 0, out: "tool said echo hi #1"},
		{name: "frontmatter ttl: store", args: []string{"---\ncache: 2h\n---\nsys3", "q1"}, llmCalls: 2, tools: 0, out: "tool said echo hi #1"},
		{name: "frontmatter ttl: hit", args: []string{"---\ncache: 2h\n---\nsys3", "q1"}, llmCalls: 0, tools: 0, out: "tool said echo hi #1"},
		{name: "--cache off beats frontmatter", args: []string{"--cache", "off", "---\ncache: 2h\n---\nsys3", "q1"}, llmCalls: 2, tools: 0, out: "tool said echo hi #1"},
	}
	for _, s := range steps {
		calls, toolHits := llmFake.calls, hits.Load()
		code, out, stderr := run(s.args...)
		if code != exitOK || strings.TrimSpace(out) != s.out {
			t.Fatalf("%s: exit %d, out %q: %s", s.name, code, out, stderr)
		}
		if llmFake.calls-calls != s.llmCalls || int(hits.Load()-toolHits) != s.tools {
			t.Fatalf("%s: %d LLM calls and %d tool calls, want %d and %d", s.name, llmFake.calls-calls, hits.Load()-toolHits, s.llmCalls, s.tools)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(e.dir, "cachedir", "c.db")); len(m) != 1 {
		t.Fatalf("cache file not at cache.sqlite.path")
	}
	code, _, stderr := run("--cache", "5 minutes", "sys", "q1")
	if code != exitConfig || !strings.Contains(stderr, "cache duration must be") {
		t.Fatalf("bad --cache: exit %d %s", code, stderr)
	}
}
