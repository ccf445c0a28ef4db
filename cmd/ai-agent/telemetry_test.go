package main

import (
	"bytes"
	"io"
	"net/http"
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
	var m []string
	for deadline := time.Now().Add(time.Minute); m == nil; time.Sleep(10 * time.Millisecond) {
		if m = metricsLine.FindStringSubmatch(p.stderr.String()); m == nil && time.Now().After(deadline) {
			t.Fatalf("no metrics listener line:\n%s", p.stderr.String())
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
