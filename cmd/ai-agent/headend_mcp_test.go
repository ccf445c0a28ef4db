package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/llm/llmtest"
)

var (
	mcptestOnce sync.Once
	mcptestBin  string
	mcptestErr  error
)

// mcptestBinary builds the failure-injecting MCP test server once per test
// process, next to the ai-agent binary.
func mcptestBinary(t *testing.T) string {
	t.Helper()
	bin := aiAgentBinary(t)
	mcptestOnce.Do(func() {
		mcptestBin = filepath.Join(filepath.Dir(bin), "mcptest")
		out, err := exec.Command("go", "build", "-o", mcptestBin, "github.com/salve-dev/salve/internal/agent/tools/mcp/mcptest/cmd/mcptest").CombinedOutput()
		if err != nil {
			mcptestErr = fmt.Errorf("build mcptest: %v\n%s", err, out)
		}
	})
	if mcptestErr != nil {
		t.Fatal(mcptestErr)
	}
	return mcptestBin
}

// mcpServerPID returns the pid of the headend's child running bin (the
// headend also has the telemetry helper as a child).
func mcpServerPID(t *testing.T, headendPID int, bin string) string {
	t.Helper()
	for _, pid := range childPIDs(t, headendPID) {
		if b, err := os.ReadFile("/proc/" + pid + "/cmdline"); err == nil && strings.HasPrefix(string(b), bin+"\x00") {
			return pid
		}
	}
	return ""
}

// scriptedTurns answers each request of a tool-using session: before its
// n-th turn it tells the test n (the number of tool results so far) on
// turns and waits for the test's go-ahead, then calls t__echo with "call
// n", and after three calls reports the tool results joined with " / ".
// Once done is closed it fails every request at once.
func scriptedTurns(srv *llmtest.Server, turns chan<- int, proceed, done <-chan struct{}) {
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = r.Decode(&body)
		var results []string
		for _, m := range body.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		n := len(results)
		select {
		case turns <- n:
		case <-done:
			return llmtest.Reply{Status: 500, ErrorMessage: "the test is over"}
		}
		select {
		case <-proceed:
		case <-done:
			return llmtest.Reply{Status: 500, ErrorMessage: "the test is over"}
		}
		if n == 3 {
			args, _ := json.Marshal(map[string]any{"report_format": "markdown", "report_content": strings.Join(results, " / ")})
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: string(args)}}}
		}
		args, _ := json.Marshal(map[string]any{"text": fmt.Sprintf("call %d", n)})
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "t__echo", Arguments: string(args)}}}
	})
}

// TestHeadendRestartsKilledMCPServer: in headend mode the agent's shared MCP
// server is killed twice in the middle of a session; each time it comes
// back (a new process, counted in /metrics) and the model's next tool call
// succeeds. Then it is killed while it cannot start again: /metrics shows
// it down, and a session's tool call tells the model it is down and why;
// once it can start, it comes back by itself.
func TestHeadendRestartsKilledMCPServer(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc to find the MCP server process")
	}
	telemetryBinaries(t)
	bin := mcptestBinary(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	turns, proceed, done := make(chan int), make(chan struct{}), make(chan struct{})
	defer close(done) // before srv.Close, which waits for the handlers
	scriptedTurns(srv, turns, proceed, done)
	dir := t.TempDir()
	flag := filepath.Join(dir, "mcp-may-start")
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k"}},` +
		`"mcpServers":{"t":{"command":"` + bin + `","args":["-needs","` + flag + `"],"toolsDenied":["spawn","freeze"],"requestTimeoutMs":60000}}}`
	if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tooled.ai"), []byte("---\nmodels: [mock/m1]\ntools: [t]\n---\nUse the tools.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startHeadend(t, dir, 1, nil, "--agent", "tooled.ai", "--tooling-transport", "native", "--api", "0",
		"--telemetry-enabled", "--telemetry-prometheus-enabled", "--telemetry-prometheus-port", "0")
	addr := metricsAddr(t, p)
	metrics := func(want ...string) {
		t.Helper()
		waitMetrics(t, addr, want)
	}
	const labels = `agent="tooled",mode="server",server="t"`
	ask := func(q string) chan string {
		out := make(chan string, 1)
		go func() {
			resp, err := http.Get("http://" + p.addrs["api"] + "/v1/tooled?q=" + url.QueryEscape(q))
			if err != nil {
				out <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out <- fmt.Sprintf("%d %s", resp.StatusCode, b)
		}()
		return out
	}
	turn := func(want int) {
		t.Helper()
		select {
		case n := <-turns:
			if n != want {
				t.Fatalf("turn with %d tool results, want %d", n, want)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("no turn %d:\n%s", want, p.stderr.String())
		}
	}
	kill := func() string {
		t.Helper()
		pid := mcpServerPID(t, p.cmd.Process.Pid, bin)
		if pid == "" {
			t.Fatalf("no MCP server process under the headend")
		}
		var n int
		fmt.Sscan(pid, &n)
		if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		return pid
	}

	answer := ask("survive")
	turn(0)
	proceed <- struct{}{}
	for i := 1; i <= 2; i++ {
		turn(i) // the model saw the result of call i-1; kill before it calls again
		old := kill()
		metrics(fmt.Sprintf(`ai_agent_mcp_server_restarts_total{%s,status="success"} %d`, labels, i), `ai_agent_mcp_server_up{`+labels+`} 1`)
		if pid := mcpServerPID(t, p.cmd.Process.Pid, bin); pid == "" || pid == old {
			t.Fatalf("after kill %d the MCP server is %q (was %s)", i, pid, old)
		}
		proceed <- struct{}{}
	}
	turn(3)
	proceed <- struct{}{}
	if got := <-answer; !strings.Contains(got, `"output":"call 0 / call 1 / call 2"`) {
		t.Fatalf("the session's tool calls after the restarts did not all succeed: %s\nstderr:\n%s", got, p.stderr.String())
	}

	// Down for good until the flag comes back.
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	kill()
	metrics(`ai_agent_mcp_server_up{`+labels+`} 0`, `ai_agent_mcp_server_restarts_total{`+labels+`,status="error"} 1`)
	answer = ask("while down")
	turn(0)
	proceed <- struct{}{}
	turn(1)
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	proceed <- struct{}{}
	turn(2)
	proceed <- struct{}{}
	turn(3)
	proceed <- struct{}{}
	got := <-answer
	for _, part := range []string{"MCP server is not running: MCP server 't' is down", "restart attempt", "refusing to start"} {
		if !strings.Contains(got, part) {
			t.Fatalf("the tool result while down does not say %q: %s", part, got)
		}
	}
	metrics(fmt.Sprintf(`ai_agent_mcp_server_restarts_total{%s,status="success"} 3`, labels), `ai_agent_mcp_server_up{`+labels+`} 1`)
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
}
