package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/telemetry"
	"github.com/salve-dev/salve/internal/agent/telemetry/otlptest"
	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/llm/llmtest"
	"github.com/salve-dev/salve/internal/testbuf"
)

var (
	helperOnce sync.Once
	helperErr  error
)

// telemetryBinaries builds ai-agent and, next to it, the telemetry helper
// it looks for there.
func telemetryBinaries(t *testing.T) string {
	t.Helper()
	bin := aiAgentBinary(t)
	helperOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", filepath.Join(filepath.Dir(bin), telemetry.HelperName), "../ai-agent-telemetry").CombinedOutput()
		if err != nil {
			helperErr = err
			t.Logf("%s", out)
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return bin
}

var metricsLine = regexp.MustCompile(`telemetry metrics listening on (\S+)`)

// metricsAddr waits for the headend's metrics listener line and returns
// its address. The line comes before the headend's, but the copy into
// p.stderr may lag the one startHeadend scans.
func metricsAddr(t *testing.T, p *headendProc) string {
	t.Helper()
	return listenerAddr(t, p.stderr)
}

// listenerAddr waits for the telemetry helper's metrics listener line in
// stderr and returns its address: the helper is a process of its own,
// and its line may come after the session has started.
func listenerAddr(t *testing.T, stderr fmt.Stringer) string {
	t.Helper()
	var m []string
	for deadline := time.Now().Add(time.Minute); m == nil; time.Sleep(10 * time.Millisecond) {
		if m = metricsLine.FindStringSubmatch(stderr.String()); m == nil && time.Now().After(deadline) {
			t.Fatalf("no metrics listener line:\n%s", stderr.String())
		}
	}
	return m[1]
}

// waitMetrics polls GET /metrics on addr until it holds every line of
// want: the helper replays events as they arrive. The cap is only for a
// hung test.
func waitMetrics(t *testing.T, addr string, want []string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		missing := ""
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %s:\n%s", missing, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTelemetryHeadendMetricsAndBudget serves an agent over the OpenAI
// headend with Prometheus on: /metrics counts the completion (requests,
// latency buckets, tokens, cost from the pricing table, the final report),
// and once the headend's budget is spent the next session ends with a
// failure naming the cap.
func TestTelemetryHeadendMetricsAndBudget(t *testing.T) {
	telemetryBinaries(t)
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k"}},
		"pricing":{"mock":{"m1":{"unit":"per_1k","prompt":1,"completion":2}}},
		"telemetry":{"labels":{"env":"test"}}}`
	if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startHeadend(t, dir, 1, nil, "--agent", "chat.ai", "--tooling-transport", "native", "--openai-completions", "0",
		"--telemetry-enabled", "--telemetry-prometheus-enabled", "--telemetry-prometheus-port", "0",
		"--telemetry-label", "team=qa", "--headend-max-cost-usd", "0.015")
	addr := metricsAddr(t, p)
	chat := func() (int, string) {
		body := `{"model":"chat","messages":[{"role":"user","content":"hello"}]}`
		resp, err := http.Post("http://"+p.addrs["openai-completions"]+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := chat(); code != http.StatusOK || !strings.Contains(body, "answer: hello") {
		t.Fatalf("first completion: %d %s", code, body)
	}
	// 11 input and 4 output tokens at 1 and 2 USD per 1000: 0.019 USD,
	// past the headend's 0.015 cap.
	if code, body := chat(); code == http.StatusOK || !strings.Contains(body, "cost budget cap reached: headend openai-completions maxCostUsd 0.0150 USD") {
		t.Fatalf("second completion: %d %s", code, body)
	}
	base := `agent="chat",call_path="chat",env="test",headend="openai-completions",mode="server",model="m1",provider="mock",reasoning_level="",status="success",team="qa"`
	want := []string{
		`ai_agent_llm_requests_total{` + base + `} 1`,
		`ai_agent_llm_latency_ms_bucket{` + base + `,le="+Inf"} 1`,
		`ai_agent_llm_prompt_tokens_total{` + base + `} 11`,
		`ai_agent_llm_cost_usd_total{` + base + `} 0.019`,
		`ai_agent_final_report_total{agent="chat",call_path="chat",env="test",forced_final_reason="none",headend="openai-completions",mode="server",source="tool-call",synthetic_reason="",team="qa"} 1`,
		`synthetic_reason="cost_budget_exceeded",team="qa"} 1`,
	}
	waitMetrics(t, addr, want)
	if code := p.stop(t); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
}

// TestTelemetryCLITraceReachesCollector runs one CLI session with traces
// on over OTLP/HTTP: the spans are at the collector when the process has
// exited. With AI_TELEMETRY_DISABLE=true nothing is sent.
func TestTelemetryCLITraceReachesCollector(t *testing.T) {
	bin := telemetryBinaries(t)
	srv := echoProvider(t, 0)
	dir := headendDir(t, srv)
	cases := []struct {
		name  string
		env   []string
		spans int
	}{
		{"traces on", nil, 1},
		{"kill switch", []string{telemetry.DisableEnv + "=true"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := otlptest.NewHTTP()
			defer c.Close()
			cmd := exec.Command(bin, "--tooling-transport", "native", "--telemetry-enabled", "--telemetry-traces-enabled",
				"--telemetry-otlp-endpoint", c.URL, "--telemetry-trace-sampler", "always_on", "chat.ai", "what is up")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
			cmd.Env = append(cmd.Env, tc.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("ai-agent: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "answer: what is up") {
				t.Fatalf("stdout %q", stdout.String())
			}
			if n := len(c.Named("agent.session")); n != tc.spans {
				t.Fatalf("session spans at exit = %d, want %d; stderr:\n%s", n, tc.spans, stderr.String())
			}
			if tc.spans == 0 {
				if n := len(c.Spans()); n != 0 {
					t.Fatalf("%d spans sent with the kill switch on", n)
				}
				return
			}
			for _, name := range []string{"agent.turn", "agent.llm"} {
				if len(c.Named(name)) == 0 {
					t.Fatalf("no %s span", name)
				}
			}
			// The resource names the program and the version it reports.
			if c.Resource("service.name") != "ai-agent" || c.Resource("service.version") != buildinfo.Version(version) || c.Resource("service.version") == "" {
				t.Errorf("resource service.name %q, service.version %q; want ai-agent and %q", c.Resource("service.name"), c.Resource("service.version"), buildinfo.Version(version))
			}
		})
	}
}

// TestTelemetryNewMetricsInARealSession runs one CLI session through the
// built binary, over each OTLP transport, in which every one of the five
// metrics moves: the local LLM server fails the first attempt with a 500
// (a retry), the bytes of each attempt are counted, the one REST tool
// holds its queue's only slot until the test has read
// ai_agent_queue_in_use 1 on /metrics, and its output is too big for the
// context window, so the guard drops it and reports what was left. When
// the process has exited, the collector holds the same metrics.
func TestTelemetryNewMetricsInARealSession(t *testing.T) {
	bin := telemetryBinaries(t)
	cases, stop, err := otlptest.Transports()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Push(llmtest.ServerError(500),
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "rest__big", Arguments: `{}`}}},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: `{"report_format":"pipe","report_content":"done"}`}}})
			entered, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			tool := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				once.Do(func() { close(entered) })
				select {
				case <-release:
				case <-r.Context().Done():
					return
				}
				_, _ = w.Write([]byte(strings.Repeat("lorem ipsum ", 20000)))
			}))
			defer tool.Close()
			var releaseOnce sync.Once
			defer releaseOnce.Do(func() { close(release) })
			dir := t.TempDir()
			cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k","models":{"m1":{"contextWindow":60000}}}},
				"restTools":{"big":{"description":"big","url":"` + tool.URL + `/big","queue":"one","parametersSchema":{"type":"object","properties":{}}}},
				"queues":{"one":{"concurrent":1}},"defaults":{"toolResponseMaxBytes":0}}`
			if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--models", "mock/m1", "--tools", "big", "--tooling-transport", "native",
				"--telemetry-enabled", "--telemetry-prometheus-enabled", "--telemetry-prometheus-port", "0",
				"--telemetry-otlp-endpoint", tc.Endpoint, "sys", "go")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "OTEL_EXPORTER_OTLP_PROTOCOL="+tc.Protocol)
			var stdout bytes.Buffer
			stderr := &testbuf.Buffer{}
			cmd.Stdout, cmd.Stderr = &stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				if cmd.ProcessState == nil {
					_ = cmd.Process.Kill()
					<-done
				}
			}()
			select {
			case <-entered:
			case err := <-done:
				t.Fatalf("ai-agent ended before the tool ran: %v\n%s", err, stderr.String())
			case <-time.After(30 * time.Second):
				t.Fatalf("the tool was not called:\n%s", stderr.String())
			}
			addr := listenerAddr(t, stderr)
			// While the tool holds the slot, the retry and the bytes of
			// the first two attempts are already counted.
			llm := `{agent="main",call_path="main",headend="cli",mode="cli",model="m1",provider="mock",reasoning_level="",status="success"}`
			waitMetrics(t, addr, []string{
				`ai_agent_queue_in_use{capacity="1",mode="cli",queue="one"} 1`,
				`ai_agent_llm_retries_total` + llm + ` 1`,
				`ai_agent_llm_bytes_in_total` + llm + ` `,
				`ai_agent_llm_bytes_out_total` + llm + ` `,
			})
			releaseOnce.Do(func() { close(release) })
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("ai-agent: %v\n%s", err, stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("ai-agent did not end:\n%s", stderr.String())
			}
			if strings.TrimSpace(stdout.String()) != "done" {
				t.Fatalf("stdout %q\n%s", stdout.String(), stderr.String())
			}
			llmAttrs := map[string]string{"provider": "mock", "model": "m1", "headend": "cli", "mode": "cli"}
			total := func(name string, match map[string]string) (sum float64) {
				for _, p := range tc.C.Matching(name, match) {
					sum += p.Value
				}
				return sum
			}
			if n := total("ai_agent_llm_retries_total", map[string]string{"provider": "mock", "status": "success"}); n != 1 {
				t.Errorf("retries at the collector = %v; points %+v", n, tc.C.Points("ai_agent_llm_retries_total"))
			}
			if n := total("ai_agent_llm_bytes_in_total", llmAttrs); n < float64(len(srv.Requests()[0].Body)) {
				t.Errorf("bytes in at the collector = %v", n)
			}
			if n := total("ai_agent_llm_bytes_out_total", llmAttrs); n <= 0 {
				t.Errorf("bytes out at the collector = %v", n)
			}
			if pts := tc.C.Matching("ai_agent_queue_in_use", map[string]string{"queue": "one", "capacity": "1"}); len(pts) == 0 || pts[len(pts)-1].Value != 0 {
				t.Errorf("queue in use at the collector = %+v (the slot is free at the end)", pts)
			}
			if pts := tc.C.Matching("ai_agent_context_guard_remaining_tokens", map[string]string{"trigger": "tool_preflight", "outcome": "forced_final"}); len(pts) == 0 || pts[len(pts)-1].Value <= 0 {
				t.Errorf("remaining tokens at the collector = %+v", pts)
			}
			if n := total("ai_agent_llm_errors_total", map[string]string{"provider": "mock", "error_type": "server"}); n != 1 {
				t.Errorf("errors at the collector = %v", n)
			}
		})
	}
}
