package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// The original's agent files and configurations
// (testdata/original/<case>/): one case per key the original documents,
// each an agent.ai and, for a config key, the .ai-agent.json beside it
// (the prompt layer), over testdata/original/home.json as the user's
// ~/.ai-agent/ai-agent.json. Each case runs the real ai-agent against a
// local model, REST and MCP server, must exit 0, and its row in
// originalCases checks that the key took effect: on the wire, in the
// result, in the files written, or, for a key salve reads differently,
// in the warning config.Differences names.

// keyCase is one case's run and check.
type keyCase struct {
	// args go before the agent file; "{run}" is the run's directory.
	args []string
	// reply answers the n-th model request (from 1); nil answers every
	// request with the final report.
	reply func(n int, r llmtest.Request) llmtest.Reply
	// twice runs the case a second time in the same home (caches).
	twice bool
	// list runs --list-tools all with the agent file alone, no task.
	list  bool
	check func(t *testing.T, r *keyRun)
}

// keyRun is what one case's run left.
type keyRun struct {
	dir            string // the run's directory
	code           int
	stdout, stderr string
	result         contract.AIAgentResult
	reqs           []llmtest.Request
	rest           *peerLog
	mcp            *peerLog
	second         *keyRun
}

// peerLog records the requests a local REST or MCP server received.
type peerLog struct {
	mu   sync.Mutex
	hits []peerHit
}

type peerHit struct {
	method, path, query string
	header              http.Header
	body                string
}

func (p *peerLog) record(r *http.Request) string {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hits = append(p.hits, peerHit{method: r.Method, path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: string(b)})
	return string(b)
}

func (p *peerLog) all() []peerHit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]peerHit(nil), p.hits...)
}

// count is the number of hits whose body contains s.
func (p *peerLog) count(s string) int {
	n := 0
	for _, h := range p.all() {
		if strings.Contains(h.body, s) {
			n++
		}
	}
	return n
}

// restServer serves the REST tools of home.json: /echo returns its body,
// /big 20000 bytes, /slow nothing until the caller gives up, /ask a line.
func restServer(t *testing.T) (*httptest.Server, *peerLog) {
	log := &peerLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := log.record(r)
		switch r.URL.Path {
		case "/echo":
			_, _ = io.WriteString(w, body)
		case "/big":
			_, _ = io.WriteString(w, strings.Repeat("x", 20000))
		case "/slow":
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, "the desk says yes")
		}
	}))
	t.Cleanup(srv.Close)
	return srv, log
}

// mcpServer serves the mcptest server over streamable HTTP at /mcp and
// over WebSocket at /ws (its sockets end with the test).
func mcpServer(t *testing.T) (*httptest.Server, *peerLog) {
	log := &peerLog{}
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcptest.HTTPHandler(mcptest.Options{}))
	mux.Handle("/ws", mcptest.WebSocketHandler(mcptest.Options{}, nil, stop))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.record(r)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv, log
}

func TestOriginalAgentFilesLoad(t *testing.T) {
	bin := aiAgentBinary(t)
	root := filepath.Join("testdata", "original")
	home, err := os.ReadFile(filepath.Join(root, "home.json"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		seen[name] = true
		kc, ok := originalCases[name]
		if !ok {
			t.Errorf("testdata/original/%s has no row in originalCases", name)
			continue
		}
		caseDir, _ := filepath.Abs(filepath.Join(root, name))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := runKeyCase(t, bin, caseDir, home, kc)
			kc.check(t, r)
		})
	}
	for name := range originalCases {
		if !seen[name] {
			t.Errorf("originalCases row %s has no testdata/original/%s", name, name)
		}
	}
}

// runKeyCase runs one case (twice when asked) and checks it exited 0.
func runKeyCase(t *testing.T, bin, caseDir string, homeJSON []byte, kc keyCase) *keyRun {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".ai-agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ai-agent", "ai-agent.json"), homeJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	llm := llmtest.NewServer()
	t.Cleanup(llm.Close)
	var mu sync.Mutex
	n := 0
	llm.Handle(func(r llmtest.Request) llmtest.Reply {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		if kc.reply != nil {
			return kc.reply(i, r)
		}
		return finalReply(r)
	})
	rest, restLog := restServer(t)
	mcpSrv, mcpLog := mcpServer(t)
	env := append(os.Environ(), "HOME="+home, "LLM_URL="+llm.URL, "LLM_KEY=sk-base", "REST_URL="+rest.URL,
		"MCP_URL="+mcpSrv.URL+"/mcp", "MCP_WS_URL=ws"+strings.TrimPrefix(mcpSrv.URL, "http")+"/ws", "CACHE_DB="+filepath.Join(dir, "cache.db"), "RUN_DIR="+dir,
		"TEAM=qa", "DESK=front", "MCP_TOKEN=tok-7", "AI_TELEMETRY_DISABLE=1")
	run := func() *keyRun {
		work := filepath.Join(dir, "work")
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		args := make([]string, 0, len(kc.args)+4)
		for _, a := range kc.args {
			args = append(args, strings.ReplaceAll(a, "{run}", dir))
		}
		result := filepath.Join(dir, "result.json")
		_ = os.Remove(result)
		if kc.list {
			args = append(args, "--list-tools", "all", filepath.Join(caseDir, "agent.ai"))
		} else {
			args = append(args, "--result-json", result, filepath.Join(caseDir, "agent.ai"), "the task")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env = work, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		_ = cmd.Run()
		r := &keyRun{dir: dir, code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String(), rest: restLog, mcp: mcpLog}
		if b, err := os.ReadFile(result); err == nil {
			if err := json.Unmarshal(b, &r.result); err != nil {
				t.Fatalf("result: %v", err)
			}
		}
		r.reqs = llm.Requests()
		if r.code != 0 {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		return r
	}
	r := run()
	if kc.twice {
		r.second = run()
	}
	return r
}

// finalReply answers with the final report in the session's format: a
// native agent__final_report call when it is offered, else the FINAL tag
// of the XML transports.
func finalReply(r llmtest.Request) llmtest.Reply {
	usage := &llmtest.Usage{Input: 100, Output: 10}
	tools := toolsOf(r)
	spec, native := tools["agent__final_report"]
	if !native {
		m := finalTag.FindStringSubmatch(textOf(r.JSON()))
		if m == nil {
			return llmtest.Reply{Text: "no final report slot", Usage: usage}
		}
		return llmtest.Reply{Text: fmt.Sprintf(`<ai-agent-%s-FINAL tool="agent__final_report" format="%s">done</ai-agent-%s-FINAL>`, m[1], m[2], m[1]), Usage: usage}
	}
	format, _ := lookup(spec, "parameters", "properties", "report_format", "const").(string)
	args := map[string]any{"report_format": format, "report_content": "done"}
	if format == "json" {
		args = map[string]any{"report_format": format, "content_json": map[string]any{"answer": "done"}}
	}
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: string(b)}}, Usage: usage}
}

var finalTag = regexp.MustCompile(`<ai-agent-([0-9a-f]{8})-FINAL tool="agent__final_report" format="([^"]+)">`)

// callTool answers with one call of each tool named, with the argument
// text "hi" (the echo tools need one; the others take any).
func callTool(names ...string) llmtest.Reply {
	rep := llmtest.Reply{Usage: &llmtest.Usage{Input: 100, Output: 10}}
	for _, n := range names {
		rep.ToolCalls = append(rep.ToolCalls, llmtest.ToolCall{Name: n, Arguments: `{"text":"hi"}`})
	}
	return rep
}

// untilFinal calls tool while a request offers it, then reports.
func untilFinal(tool string) func(int, llmtest.Request) llmtest.Reply {
	return func(_ int, r llmtest.Request) llmtest.Reply {
		if _, ok := toolsOf(r)[tool]; ok {
			return callTool(tool)
		}
		return finalReply(r)
	}
}

// toolsOf maps the tools a request offers to their definitions, in the
// OpenAI shape ({description, parameters}) whatever the wire.
func toolsOf(r llmtest.Request) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := r.JSON()["tools"].([]any)
	for _, raw := range list {
		m, _ := raw.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			m = fn
		} else if sch, ok := m["input_schema"]; ok {
			m = map[string]any{"name": m["name"], "description": m["description"], "parameters": sch}
		}
		if name, ok := m["name"].(string); ok {
			out[name] = m
		}
	}
	return out
}

// lookup walks nested objects.
func lookup(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// textOf joins every string in a decoded JSON value.
func textOf(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			b.WriteString(t)
			b.WriteByte('\n')
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k])
			}
		}
	}
	walk(v)
	return b.String()
}

// differenceWarning is the warning config.Differences gives for the row
// of where, key and value, found at at.
func differenceWarning(t *testing.T, where, key, value, at string) string {
	t.Helper()
	for _, d := range config.Differences {
		if d.Where == where && d.Key == key && d.Value == value {
			return d.Warning(at)
		}
	}
	t.Fatalf("config.Differences has no %s row %s %s", where, key, value)
	return ""
}
