package enginetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/ctxguard/agentguard"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/llm/openai"
)

const helperEnv = "SALVE_MCPTEST_HELPER"

// TestMain doubles as the mcptest MCP server (helper-process pattern).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "" {
		os.Exit(m.Run())
	}
	if err := mcptest.ServeStdio(context.Background(), mcptest.Options{Process: true}, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startMCP starts the mcptest server as a child process, bound to queue.
func startMCP(t *testing.T, queueName string) *mcp.Server { return startMCPB(t, queueName) }

func startMCPB(t testing.TB, queueName string) *mcp.Server {
	t.Helper()
	cfg := mcp.ServerConfig{Name: "t", Command: os.Args[0], Env: map[string]string{helperEnv: "1"}, Queue: queueName}
	set, err := mcp.Start(context.Background(), cfg, mcp.Options{TerminateDuration: 500e6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = set.Close() })
	return set
}

// chatRequest is the part of an OpenAI chat request the scripts read.
type chatRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (r chatRequest) toolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// toolResults returns the contents of the tool messages, in order.
func (r chatRequest) toolResults() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			s, _ := m.Content.(string)
			out = append(out, s)
		}
	}
	return out
}

// userPrompt returns the first user message.
func (r chatRequest) userPrompt() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			s, _ := m.Content.(string)
			return s
		}
	}
	return ""
}

// llmServer starts an llmtest server answering with script, which sees
// each decoded request, and records the decoded requests.
type llmServer struct {
	*llmtest.Server
	mu   sync.Mutex
	reqs []chatRequest
}

func newLLM(t *testing.T, script func(chatRequest) llmtest.Reply) *llmServer {
	t.Helper()
	s := &llmServer{Server: llmtest.NewServer()}
	t.Cleanup(s.Close)
	s.Handle(func(r llmtest.Request) llmtest.Reply {
		var req chatRequest
		if err := r.Decode(&req); err != nil {
			return llmtest.Reply{Status: 400, ErrorMessage: err.Error()}
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		return script(req)
	})
	return s
}

func (s *llmServer) requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequest(nil), s.reqs...)
}

func callTool(id, name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Arguments: args}}, Usage: &llmtest.Usage{Input: 100, Output: 10}}
}

func finalReport(content string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"report_format": "markdown", "report_content": content})
	return callTool("fr", agent.ToolFinalReport, string(args))
}

// sessionOpts are the options of one native-transport session against the
// llm server, with the MCP tools, the queuer and a fresh context guard.
func sessionOpts(t testing.TB, llmURL string, window int, prompt string, providers []tools.Provider, q agent.Queuer, log *slog.Logger) agent.Options {
	t.Helper()
	target := agent.Target{Provider: "local", Model: "m", Client: openai.New(openai.Options{BaseURL: llmURL}),
		ContextWindow: window, Params: agent.Params{MaxOutputTokens: 1000}}
	guard, err := agentguard.New([]agent.Target{target}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	return agent.Options{
		SystemPrompt: "You are a test agent.", UserPrompt: prompt,
		Targets: []agent.Target{target}, Transport: agent.TransportNative, Format: agent.FormatMarkdown,
		MaxTurns: 4, MaxRetries: 2, Tools: providers, Queuer: q, Guard: guard, Logger: log, Nonce: "abcdef01",
		Trace: agent.Trace{AgentID: "main", CallPath: "main", TxnID: prompt, OriginTxnID: prompt},
	}
}

// jsonLog is a logger writing JSON lines into a buffer.
type jsonLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *jsonLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *jsonLog) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lines returns the decoded records whose msg is msg.
func (l *jsonLog) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

func num(m map[string]any, k string) int {
	f, _ := m[k].(float64)
	return int(f)
}

// toolEntries returns the tool accounting entries for command.
func toolEntries(res contract.AIAgentResult, command string) []contract.AccountingEntry {
	var out []contract.AccountingEntry
	for _, e := range res.Accounting {
		if e.Type == contract.AccountingTool && e.Command == command {
			out = append(out, e)
		}
	}
	return out
}

// toolMessages returns the tool messages of a conversation.
func toolMessages(res contract.AIAgentResult) []string {
	var out []string
	for _, m := range res.Conversation {
		if m.Role == contract.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

// children lists the live processes whose parent is this process.
func children(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	me := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(me) && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}
