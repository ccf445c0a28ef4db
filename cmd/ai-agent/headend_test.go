package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/testbuf"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// TestMain removes the binary aiAgentBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// aiAgentBinary builds the real binary once per test process.
func aiAgentBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ai-agent-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "ai-agent")
		cmd := exec.Command("go", "build", "-o", builtBin, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// echoProvider is a local OpenAI-wire server whose model calls the final
// report with "answer: PROMPT" (content_json {"answer": PROMPT}) at once.
func echoProvider(t *testing.T, delay time.Duration) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		_ = r.Decode(&body)
		prompt := ""
		for _, m := range body.Messages {
			if s, ok := m.Content.(string); ok && m.Role == "user" {
				prompt = s
			}
		}
		args, _ := json.Marshal(map[string]any{"report_format": "markdown", "report_content": "answer: " + prompt,
			"content_json": map[string]any{"answer": prompt}})
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: string(args)}},
			Usage: &llmtest.Usage{Input: 11, Output: 4}, Delay: delay}
	})
	return srv
}

// headendDir writes the config and two agents (chat, extract) into a temp
// dir whose provider is srv.
func headendDir(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".ai-agent.json": `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k"}}}`,
		"chat.ai":        "---\ndescription: Answers questions\nmodels: [mock/m1]\n---\nYou answer in ${FORMAT}.\n",
		"extract.ai": "---\ndescription: Extracts the answer as JSON\nmodels: [mock/m1]\noutput:\n  format: json\n  schema:\n    type: object\n" +
			"    required: [answer]\n    properties:\n      answer: {type: string}\n---\nYou extract.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// headendProc is a running ai-agent in headend mode.
type headendProc struct {
	cmd    *exec.Cmd
	addrs  map[string]string
	stderr *testbuf.Buffer
	done   chan struct{}
	code   int
}

var listenLine = regexp.MustCompile(`headend (\S+) listening on (\S+)`)

// startHeadend runs the binary in dir with args and waits for want
// "listening" lines.
func startHeadend(t *testing.T, dir string, want int, env []string, args ...string) *headendProc {
	t.Helper()
	cmd := exec.Command(aiAgentBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
	cmd.Env = append(cmd.Env, env...)
	pr, pw := io.Pipe()
	p := &headendProc{cmd: cmd, addrs: map[string]string{}, stderr: &testbuf.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = io.MultiWriter(pw, p.stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		_ = err
		pw.Close()
		close(p.done)
	}()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		n := 0
		for sc.Scan() {
			if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
				p.addrs[m[1]] = m[2]
				if n++; n == want {
					close(ready)
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case <-ready:
	case <-p.done:
		t.Fatalf("ai-agent exited %d before listening:\n%s", p.code, p.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("ai-agent did not listen:\n%s", p.stderr.String())
	}
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop sends SIGTERM and waits for the exit.
func (p *headendProc) stop(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("ai-agent did not exit after SIGTERM:\n%s", p.stderr.String())
	}
	return p.code
}

// nodeClients runs testdata/headend/clients.cjs, or skips when node or
// the SDKs are missing.
func nodeClients(t *testing.T, dir string, env []string, args ...string) map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found; install Node.js and run scripts/headend/setup.sh")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	modules := filepath.Join(root, ".deps", "headend", "node_modules")
	for _, pkg := range []string{"openai", "@anthropic-ai/sdk", "@modelcontextprotocol/sdk"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Skipf("%s is not installed; run scripts/headend/setup.sh", pkg)
		}
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "headend", "clients.cjs"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "HOME="+filepath.Join(dir, "home"))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", args[0], err, stderr.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	return m
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestHeadendOpenAIAndAnthropicSDKs(t *testing.T) {
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	p := startHeadend(t, dir, 2, []string{"AI_AGENT_HEADEND_TOKEN=tok-123"},
		"--agent", "chat.ai", "--agent", "extract.ai", "--tooling-transport", "native",
		"--openai-completions", "0", "--anthropic-completions", "0")
	env := []string{"TOKEN=tok-123"}

	o := nodeClients(t, dir, env, "openai", "http://"+p.addrs["openai-completions"])
	checks := []struct{ name, got, want string }{
		{"models", jsonOf(o["models"]), `["chat","extract"]`},
		{"plain", jsonOf(o["plain"]), `"answer: plain question"`},
		{"finish", jsonOf(o["finish"]), `"stop"`},
		{"usage", jsonOf(o["usage"]), `{"completion_tokens":4,"prompt_tokens":11,"total_tokens":15}`},
		{"streamed", jsonOf(o["streamed"]), `"answer: streamed question"`},
		{"stream usage", jsonOf(o["streamUsage"]), `{"completion_tokens":4,"prompt_tokens":11,"total_tokens":15}`},
		{"not found", jsonOf(o["notFound"]), `{"code":"model_not_found","status":404,"type":"invalid_request_error"}`},
		{"unauthorized", jsonOf(o["unauthorized"]), `{"status":401}`},
	}
	a := nodeClients(t, dir, env, "anthropic", "http://"+p.addrs["anthropic-completions"])
	checks = append(checks, []struct{ name, got, want string }{
		{"anthropic plain", jsonOf(a["plain"]), `"answer: plain question"`},
		{"anthropic stop", jsonOf(a["stopReason"]), `"end_turn"`},
		{"anthropic usage", jsonOf(a["usage"]), `{"input_tokens":11,"output_tokens":4}`},
		{"anthropic streamed", jsonOf(a["streamed"]), `"answer: streamed question"`},
		{"anthropic text events", jsonOf(a["streamedText"]), `"answer: streamed question"`},
		{"anthropic stream stop", jsonOf(a["streamStop"]), `"end_turn"`},
		{"anthropic not found", jsonOf(a["notFound"]), `{"status":404,"type":"not_found_error"}`},
	}...)
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, c.got, c.want)
		}
	}
	// The provider saw the history before the prompt, as user/assistant
	// turns after the agent's own system prompt.
	var sawHistory bool
	for _, r := range srv.Requests() {
		var body struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		_ = r.Decode(&body)
		var roles []string
		for _, m := range body.Messages {
			roles = append(roles, m.Role+":"+m.Content)
		}
		if strings.Contains(strings.Join(roles, "|"), "user:first question|assistant:first answer|user:plain question") {
			sawHistory = true
			if !strings.HasPrefix(roles[0], "system:You answer in markdown") {
				t.Errorf("system prompt %q", roles[0])
			}
		}
	}
	if !sawHistory {
		t.Error("the provider never saw the chat history")
	}
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, p.stderr.String())
	}
}

func TestHeadendMCPSDK(t *testing.T) {
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	check := func(t *testing.T, m map[string]any) {
		t.Helper()
		if !strings.Contains(jsonOf(m["instructions"]), "chat: Answers questions") {
			t.Errorf("instructions %v", m["instructions"])
		}
		want := map[string]string{
			"tools":         `[{"name":"chat","required":["prompt","format"]},{"name":"extract","required":["prompt","format"]}]`,
			"text":          `"answer: mcp question"`,
			"isError":       `false`,
			"jsonText":      `"{\"answer\":\"mcp json\"}"`,
			"structured":    `{"answer":"mcp json"}`,
			"missingFormat": `{"content":[{"text":"format is required, one of markdown, markdown+mermaid, slack-block-kit, tty, pipe, text, json, sub-agent","type":"text"}],"isError":true}`,
		}
		for k, v := range want {
			if got := jsonOf(m[k]); got != v {
				t.Errorf("%s: got %s, want %s", k, got, v)
			}
		}
	}
	t.Run("stdio", func(t *testing.T) {
		args := jsonOf([]string{"--agent", "chat.ai", "--agent", "extract.ai", "--tooling-transport", "native", "--mcp", "stdio"})
		check(t, nodeClients(t, dir, nil, "mcp-stdio", aiAgentBinary(t), args))
	})
	t.Run("http", func(t *testing.T) {
		p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--agent", "extract.ai", "--tooling-transport", "native",
			"--mcp", "http:0", "--headend-token", "mcp-tok")
		check(t, nodeClients(t, dir, []string{"TOKEN=mcp-tok"}, "mcp-http", "http://"+p.addrs["mcp:http"]))
		if code := p.stop(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
	t.Run("ws", func(t *testing.T) {
		// The SDK's WebSocket client sends no headers, so no token here;
		// the token on the handshake is tested in internal/agent/headend.
		p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--agent", "extract.ai", "--tooling-transport", "native",
			"--mcp", "ws:0")
		check(t, nodeClients(t, dir, []string{"NODE_OPTIONS=--experimental-websocket"}, "mcp-ws", "ws://"+p.addrs["mcp:ws"]+"/mcp"))
		if code := p.stop(t); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
}

// TestHeadendSessionRecords checks that a served session is a normal one:
// its accounting reaches the billing file and its result the sessions dir,
// both under the request id.
func TestHeadendSessionRecords(t *testing.T) {
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	billing := filepath.Join(dir, "billing.jsonl")
	sessions := filepath.Join(dir, "sessions")
	p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--tooling-transport", "native", "--api", "0",
		"--billing-file", billing, "--sessions-dir", sessions)
	resp, err := http.Get("http://" + p.addrs["api"] + "/v1/chat?q=record+me")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 200 || id == "" || !strings.Contains(string(body), `"output":"answer: record me"`) {
		t.Fatalf("%d %s (id %q)", resp.StatusCode, body, id)
	}
	if _, err := os.Stat(filepath.Join(sessions, id+".json.gz")); err != nil {
		t.Fatalf("session file: %v", err)
	}
	b, err := os.ReadFile(billing)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Type        string `json:"type"`
		OriginTxnID string `json:"originTxnId"`
		TxnID       string `json:"txnId"`
		AgentID     string `json:"agentId"`
	}
	if err := json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &e); err != nil {
		t.Fatalf("billing %q: %v", b, err)
	}
	if e.Type != "llm" || e.OriginTxnID != id || e.TxnID != id || e.AgentID != "chat" {
		t.Fatalf("billing entry %+v, want the request id %s", e, id)
	}
}

func TestHeadendStartupErrors(t *testing.T) {
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no agent", []string{"--api", "0"}, exitConfig, "at least one --agent"},
		{"prompt given", []string{"--agent", "chat.ai", "--api", "0", "hello"}, exitConfig, "takes no prompts"},
		{"unknown mcp transport", []string{"--agent", "chat.ai", "--mcp", "tcp:0"}, exitConfig, "unknown transport"},
		{"bad port", []string{"--agent", "chat.ai", "--api", "http"}, exitConfig, "not a port"},
		{"missing agent file", []string{"--agent", "nope.ai", "--api", "0"}, exitConfig, "nope.ai does not exist"},
		{"duplicate", []string{"--agent", "chat.ai", "--agent", "./chat.ai", "--api", "0"}, exitConfig, "two agents are named"},
		{"slack without config", []string{"--agent", "chat.ai", "--slack"}, exitConfig, "--slack needs a slack section"},
		{"embed bad profile", []string{"--agent", "chat.ai", "--embed", "a b:0"}, exitConfig, "profile name"},
		{"bad concurrency", []string{"--agent", "chat.ai", "--api", "0", "--api-concurrency", "0"}, exitConfig, "concurrency"},
		{"dry run", []string{"--agent", "chat.ai", "--api", "0", "--dry-run"}, exitOK, ""},
		{"dry run duplicate", []string{"--agent", "chat.ai", "--agent", "./chat.ai", "--api", "0", "--dry-run"}, exitConfig, "two agents are named"},
		{"result-json", []string{"--agent", "chat.ai", "--api", "0", "--result-json", "r.json"}, exitConfig, "--result-json is for a single run"},
		{"headend flag in a run", []string{"--api-concurrency", "3", "chat.ai", "hello"}, exitConfig, "--api-concurrency needs a headend"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(aiAgentBinary(t), tt.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			_ = cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", code, tt.code, stderr.String(), tt.want)
			}
		})
	}
}

// TestHeadendSIGTERMDuringLoad sends SIGTERM while sessions run and wait:
// running ones finish (or, past the grace period, are reported cancelled),
// waiting ones are refused, nothing hangs and the exit code is 0.
func TestHeadendSIGTERMDuringLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		grace string
		delay time.Duration
	}{
		{"finish within grace", "20s", 700 * time.Millisecond},
		{"cancelled past grace", "300ms", time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := echoProvider(t, tc.delay)
			dir := headendDir(t, srv)
			p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--tooling-transport", "native",
				"--openai-completions", "0", "--openai-completions-concurrency", "2", "--headend-grace", tc.grace, "--max-retries", "1")
			url := "http://" + p.addrs["openai-completions"] + "/v1/chat/completions"
			const n = 6
			type answer struct {
				status int
				body   string
			}
			answers := make(chan answer, n)
			for i := 0; i < n; i++ {
				go func(i int) {
					body := fmt.Sprintf(`{"model":"chat","stream":%v,"messages":[{"role":"user","content":"q%d"}]}`, i%2 == 0, i)
					resp, err := http.Post(url, "application/json", strings.NewReader(body))
					if err != nil {
						answers <- answer{0, err.Error()}
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					answers <- answer{resp.StatusCode, string(b)}
				}(i)
			}
			// Wait until both slots run a session (the provider saw them).
			deadline := time.Now().Add(30 * time.Second)
			for len(srv.Requests()) < 2 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("exit %d:\n%s", code, p.stderr.String())
			}
			finished, cancelled, refused := 0, 0, 0
			for i := 0; i < n; i++ {
				var a answer
				select {
				case a = <-answers:
				case <-time.After(30 * time.Second):
					t.Fatal("a client never got an answer")
				}
				switch {
				case a.status == 200 && strings.Contains(a.body, "answer: q") && !strings.Contains(a.body, `"error"`):
					finished++
				case strings.Contains(a.body, "cancelled by shutdown"):
					cancelled++
				case a.status == 503 && strings.Contains(a.body, "shutting down"):
					refused++
				case a.status == 0:
					// The connection closed before the request was
					// accepted (it raced the listener's close).
					refused++
				default:
					t.Errorf("unexpected answer %d %s", a.status, a.body)
				}
			}
			t.Logf("finished %d, cancelled %d, refused %d", finished, cancelled, refused)
			if tc.delay < time.Minute && finished < 2 {
				t.Errorf("running sessions did not finish: %d finished", finished)
			}
			if tc.delay == time.Minute && cancelled < 2 {
				t.Errorf("running sessions were not reported cancelled: %d", cancelled)
			}
		})
	}
}

// childPIDs lists the child processes of pid.
func childPIDs(t *testing.T, pid int) []string {
	t.Helper()
	var out []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// TestHeadendSharesMCPServers: an agent's MCP server starts once at load
// and serves the tool calls of concurrent sessions; no request starts a
// process, and none is left after SIGTERM.
func TestHeadendSharesMCPServers(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc to count child processes")
	}
	bin := mcptestBinary(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	// Turn 1 calls t__echo with the prompt; turn 2 reports the tool's
	// answer.
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = r.Decode(&body)
		last := body.Messages[len(body.Messages)-1]
		if last.Role == "tool" {
			args, _ := json.Marshal(map[string]any{"report_format": "markdown", "report_content": "tool said: " + last.Content})
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: string(args)}}}
		}
		args, _ := json.Marshal(map[string]any{"text": last.Content})
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "t__echo", Arguments: string(args)}}, Delay: 100 * time.Millisecond}
	})
	dir := t.TempDir()
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k"}},` +
		`"mcpServers":{"t":{"command":"` + bin + `","toolsDenied":["spawn"]}}}`
	if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tooled.ai"), []byte("---\nmodels: [mock/m1]\ntools: [t]\n---\nUse the tools.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startHeadend(t, dir, 1, nil, "--agent", "tooled.ai", "--tooling-transport", "native", "--api", "0", "--api-concurrency", "4")
	pid := p.cmd.Process.Pid
	if kids := childPIDs(t, pid); len(kids) != 1 {
		t.Fatalf("children at start: %v, want the one MCP server", kids)
	}
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := http.Get(fmt.Sprintf("http://%s/v1/tooled?q=msg%d", p.addrs["api"], i))
			if err != nil {
				errs <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := fmt.Sprintf(`"output":"tool said: msg%d"`, i); resp.StatusCode != 200 || !strings.Contains(string(b), want) {
				errs <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if kids := childPIDs(t, pid); len(kids) != 1 {
		t.Fatalf("children after %d sessions: %v, want the one MCP server", n, kids)
	}
	mcpPid := childPIDs(t, pid)[0]
	if code := p.stop(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat("/proc/" + mcpPid); err != nil {
			break
		}
		if b, _ := os.ReadFile("/proc/" + mcpPid + "/stat"); strings.Contains(string(b), ") Z ") {
			break // exited, not yet reaped by its parent's parent
		}
		if time.Now().After(deadline) {
			t.Fatalf("the MCP server %s outlived ai-agent", mcpPid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHeadendClientDisconnectCancelsSession: a client that goes away
// cancels its session at once (the provider would answer in a minute);
// the cancelled session is still recorded in the billing file.
func TestHeadendClientDisconnectCancelsSession(t *testing.T) {
	srv := echoProvider(t, time.Minute)
	dir := headendDir(t, srv)
	billing := filepath.Join(dir, "billing.jsonl")
	p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--tooling-transport", "native", "--openai-completions", "0",
		"--billing-file", billing, "--max-retries", "1")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addrs["openai-completions"]+"/v1/chat/completions",
		strings.NewReader(`{"model":"chat","stream":true,"messages":[{"role":"user","content":"x"}]}`))
	go func() {
		waitRequest(t, srv)
		cancel()
	}()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(billing)
		if bytes.Contains(b, []byte(`"status":"failed"`)) {
			if !bytes.Contains(b, []byte("cancel")) {
				t.Fatalf("billing entry does not say cancelled: %s", b)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session went on after its client left; billing: %q", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHeadendSecondSignalEndsAtOnce: during the grace period a second
// SIGTERM ends the process without waiting for the sessions.
func TestHeadendSecondSignalEndsAtOnce(t *testing.T) {
	srv := echoProvider(t, time.Minute)
	dir := headendDir(t, srv)
	p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--tooling-transport", "native", "--api", "0", "--headend-grace", "10m")
	go func() {
		if resp, err := http.Get("http://" + p.addrs["api"] + "/v1/chat?q=hang"); err == nil {
			resp.Body.Close()
		}
	}()
	waitRequest(t, srv)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	// The second signal is sent only once the first was handled: two
	// signals sent before then may be delivered as one.
	waitStderr(t, p, "shutting down")
	select {
	case <-p.done:
		t.Fatal("the first SIGTERM did not wait for the running session")
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("a second SIGTERM did not end the process")
	}
}

// waitRequest waits until the provider has received a request; a minute
// is only a cap on a hung test.
func waitRequest(t *testing.T, srv *llmtest.Server) {
	deadline := time.Now().Add(time.Minute)
	for len(srv.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Error("the provider never received a request")
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitStderr waits until the headend's stderr holds want.
func waitStderr(t *testing.T, p *headendProc, want string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on stderr:\n%s", want, p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
