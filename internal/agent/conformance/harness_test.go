// Package conformance drives the built ai-agent binary over the process
// boundary and checks the guarantees of the AI Agent Contract
// (docs/contracts/ai-agent.md), one test per guarantee, named after the
// contract's sections: a bare "§N" in this package is a section of that
// page. Each run gets temporary config layers, a test-llm scenario file or
// a local LLM server speaking a real wire format (internal/llm/llmtest), and a local
// HTTP server behind the REST tools.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// binary is the ai-agent built once by TestMain; mcpServer is the
// failure-injecting MCP test server (internal/agent/tools/mcp/mcptest) built beside it.
// CONFORMANCE_RACE=1 builds both with the race detector, so a data race in
// the binary fails the run that hits it.
var binary, mcpServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ai-agent-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "ai-agent")
	mcpServer = filepath.Join(dir, "mcptest")
	for out, pkg := range map[string]string{binary: "github.com/salve-dev/salve/cmd/ai-agent", mcpServer: "github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest/cmd/mcptest"} {
		args := []string{"build", "-o", out}
		if os.Getenv("CONFORMANCE_RACE") == "1" {
			args = append(args, "-race")
		}
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{
			Path: "go", Args: append(args, pkg),
			Env: os.Environ(), Timeout: 5 * time.Minute, Combined: true,
		})
		if err != nil || res.ExitCode != 0 {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, res.Stdout)
			os.Exit(1)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// harness is one isolated run directory: cwd, HOME, config and scenario
// files, and the REST tool server.
type harness struct {
	t    *testing.T
	dir  string
	home string
	tool *httptest.Server
	// active and peak count concurrent calls of the /conc tool.
	active, peak atomic.Int32
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, home: filepath.Join(dir, "home")}
	h.tool = httptest.NewServer(http.HandlerFunc(h.toolHandler))
	t.Cleanup(h.tool.Close)
	h.config(nil)
	return h
}

// toolHandler serves the REST tools: echo, slow, big, status and conc.
func (h *harness) toolHandler(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch r.URL.Path {
	case "/conc":
		n := h.active.Add(1)
		for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
		}
		time.Sleep(150 * time.Millisecond)
		h.active.Add(-1)
		_, _ = w.Write([]byte("done"))
	case "/echo":
		_, _ = w.Write([]byte(q.Get("text")))
	case "/slow":
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte("late"))
	case "/big":
		n, _ := strconv.Atoi(q.Get("n"))
		_, _ = w.Write([]byte(strings.Repeat("x", n)))
	case "/status":
		code, _ := strconv.Atoi(q.Get("code"))
		w.WriteHeader(code)
	default:
		http.NotFound(w, r)
	}
}

// config writes ./.ai-agent.json: two test-llm providers on s.json, the
// REST tools, plus the given top-level members (which replace the base
// members of the same name).
func (h *harness) config(extra map[string]any) {
	h.t.Helper()
	schema := func(props string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{` + props + `}}`)
	}
	cfg := map[string]any{
		"providers": map[string]any{
			"test":  map[string]any{"type": "test-llm", "scenarioFile": "s.json"},
			"test2": map[string]any{"type": "test-llm", "scenarioFile": "s.json"},
		},
		"restTools": map[string]any{
			"echo":   map[string]any{"description": "echo", "url": h.tool.URL + "/echo?text=${parameters.text}", "parametersSchema": schema(`"text":{"type":"string"}`)},
			"slow":   map[string]any{"description": "slow", "url": h.tool.URL + "/slow", "parametersSchema": schema("")},
			"big":    map[string]any{"description": "big", "url": h.tool.URL + "/big?n=${parameters.n}", "parametersSchema": schema(`"n":{"type":"integer"}`)},
			"conc":   map[string]any{"description": "conc", "url": h.tool.URL + "/conc", "queue": "one", "parametersSchema": schema("")},
			"status": map[string]any{"description": "status", "url": h.tool.URL + "/status?code=${parameters.code}", "parametersSchema": schema(`"code":{"type":"integer"}`)},
		},
	}
	cfg["queues"] = map[string]any{"one": map[string]any{"concurrent": 1}}
	for k, v := range extra {
		cfg[k] = v
	}
	h.writeJSON(".ai-agent.json", cfg)
}

func (h *harness) writeJSON(name string, v any) {
	h.t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	h.write(name, string(b))
}

func (h *harness) write(name, text string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// scenario writes s.json.
func (h *harness) scenario(text string) {
	h.t.Helper()
	if !json.Valid([]byte(text)) {
		h.t.Fatalf("scenario is not JSON:\n%s", text)
	}
	h.write("s.json", text)
}

// outcome is one run of the binary.
type outcome struct {
	code   int
	stdout string
	stderr string
	res    contract.AIAgentResult
	raw    []byte
}

// run runs ai-agent in the harness directory with --result-json added.
func (h *harness) run(args ...string) *outcome {
	h.t.Helper()
	return h.runStdin("", args...)
}

func (h *harness) runStdin(stdin string, args ...string) *outcome {
	h.t.Helper()
	resultPath := filepath.Join(h.dir, "result.json")
	_ = os.Remove(resultPath)
	full := append([]string{"--result-json", resultPath, "--billing-file", filepath.Join(h.dir, "billing.jsonl"),
		"--sessions-dir", filepath.Join(h.dir, "sessions")}, args...)
	env := []string{"HOME=" + h.home, "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: binary, Args: full, Dir: h.dir, Env: env, Stdin: strings.NewReader(stdin), Timeout: 60 * time.Second,
	})
	if err != nil {
		h.t.Fatalf("running ai-agent: %v", err)
	}
	o := &outcome{code: res.ExitCode, stdout: string(res.Stdout), stderr: string(res.Stderr)}
	if b, err := os.ReadFile(resultPath); err == nil {
		o.raw = b
		if err := json.Unmarshal(b, &o.res); err != nil {
			h.t.Fatalf("result JSON does not decode: %v\n%s", err, b)
		}
	}
	return o
}

// mustExit fails the test unless the exit code is want.
func (o *outcome) mustExit(t *testing.T, want int) *outcome {
	t.Helper()
	if o.code != want {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, want, o.stdout, o.stderr)
	}
	return o
}

// checkInvariants asserts the guarantees every result must meet: §2 always
// a result, §9 no success without a report, status/success agreement,
// exit code agreement, conversation starts system then user.
func (o *outcome) checkInvariants(t *testing.T, maxTurns int) {
	t.Helper()
	if o.raw == nil {
		t.Fatalf("no result document (exit %d)\n%s", o.code, o.stderr)
	}
	r := o.res
	if r.Success && r.FinalReport == nil {
		t.Fatalf("success without finalReport")
	}
	if r.Success != (o.code == 0) {
		t.Fatalf("success %v with exit %d", r.Success, o.code)
	}
	if !r.Success && r.Error == "" {
		t.Fatalf("failure without error")
	}
	if r.FinalReport != nil && (r.FinalReport.Status == contract.ReportSuccess) != r.Success {
		t.Fatalf("finalReport.status %q with success %v", r.FinalReport.Status, r.Success)
	}
	if n := count(r.Conversation, contract.RoleAssistant); maxTurns > 0 && n > maxTurns {
		t.Fatalf("%d assistant messages with maxTurns %d", n, maxTurns)
	}
	if len(r.Conversation) >= 2 && (r.Conversation[0].Role != contract.RoleSystem || r.Conversation[1].Role != contract.RoleUser) {
		t.Fatalf("conversation does not start with system, user")
	}
}

func count(conv []contract.Message, role string) int {
	n := 0
	for _, m := range conv {
		if m.Role == role {
			n++
		}
	}
	return n
}

// llmSeq is the provider:status sequence of the LLM entries.
func llmSeq(acc []contract.AccountingEntry) []string {
	var out []string
	for _, e := range acc {
		if e.Type == contract.AccountingLLM {
			out = append(out, e.Provider+":"+e.Status)
		}
	}
	return out
}

// toolEntries returns the tool entries of a command.
func toolEntries(acc []contract.AccountingEntry, command string) []contract.AccountingEntry {
	var out []contract.AccountingEntry
	for _, e := range acc {
		if e.Type == contract.AccountingTool && e.Command == command {
			out = append(out, e)
		}
	}
	return out
}

// toolMessages maps toolCallId to tool message content.
func toolMessages(conv []contract.Message) map[string]string {
	out := map[string]string{}
	for _, m := range conv {
		if m.Role == contract.RoleTool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// report is a final-report turn of a scenario.
func report(turn int, content string) string {
	return fmt.Sprintf(`{"turn": %d, "response": {"kind": "final-report", "reportContent": %q}}`, turn, content)
}

// echoTurn is a turn calling rest__echo.
func echoTurn(turn int, text string) string {
	return fmt.Sprintf(`{"turn": %d, "response": {"kind": "tool-call", "toolCalls": [{"toolName": "rest__echo", "arguments": {"text": %q}}]}}`, turn, text)
}

// one wraps turns into a single scenario with the given id.
func one(id string, turns ...string) string {
	return fmt.Sprintf(`[{"id": %q, "turns": [%s]}]`, id, strings.Join(turns, ","))
}

// compact is the compact form of a JSON value.
func compact(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}
