package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/telemetry"
	"github.com/salve-dev/salve/internal/agent/telemetry/otlptest"
	"github.com/salve-dev/salve/internal/llm"
)

// finalLLM answers every request with the native final report.
type finalLLM struct{}

func (finalLLM) Complete(context.Context, llm.Request) (llm.Response, error) {
	args, _ := json.Marshal(map[string]string{"report_format": "markdown", "report_content": "done"})
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: "f", Name: agent.ToolFinalReport, Arguments: string(args)}},
		StopReason: "tool_calls", Usage: contract.TokenUsage{InputTokens: 12, OutputTokens: 3}}, nil
}

// helper runs Serve on a pipe, as the ai-agent-telemetry program does,
// and returns the relay, the ready line and a function that ends the
// input and waits for Serve.
func helper(t *testing.T, set telemetry.Settings) (*telemetry.Relay, telemetry.Ready, func() error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, outW, nil); _ = outW.Close() }()
	line, _ := json.Marshal(set)
	if _, err := inW.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	var ready telemetry.Ready
	b, err := bufio.NewReader(outR).ReadBytes('\n')
	if err != nil || json.Unmarshal(b, &ready) != nil {
		t.Fatalf("ready line %q: %v", b, err)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	stop := func() error {
		_ = inW.Close()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("Serve did not return after its input ended")
			return nil
		}
	}
	return telemetry.NewRelay(inW, nil), ready, stop
}

func session(t *testing.T, obs agent.Observer, headend string) {
	t.Helper()
	res := agent.Run(context.Background(), agent.Options{SystemPrompt: "s", UserPrompt: "u", Transport: agent.TransportNative,
		Targets: []agent.Target{{Provider: "mock", Model: "m1", Client: finalLLM{}}}, Observer: obs, Headend: headend,
		Trace: agent.Trace{AgentID: "chat", CallPath: "chat", TxnID: "t1", OriginTxnID: "t1"}})
	if !res.Success {
		t.Fatalf("session failed: %s", res.Error)
	}
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	return string(b)
}

// waitMetrics polls /metrics until it holds every line of want: the
// helper replays events as they arrive.
func waitMetrics(t *testing.T, addr string, want []string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		body, missing := scrape(t, addr), ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %s:\n%s", missing, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMetricsThroughTheHelper(t *testing.T) {
	relay, ready, stop := helper(t, telemetry.Settings{Mode: telemetry.ModeServer, Prometheus: true, PrometheusAddr: "127.0.0.1:0",
		Labels: map[string]string{"env": "test"}})
	if ready.Addr == "" || ready.Error != "" {
		t.Fatalf("ready = %+v", ready)
	}
	session(t, relay, "openai-completions")
	session(t, relay, "openai-completions")
	labels := `agent="chat",call_path="chat",env="test",headend="openai-completions",mode="server",model="m1",provider="mock"`
	want := []string{
		`ai_agent_llm_requests_total{` + labels + `,reasoning_level="",status="success"} 2`,
		`ai_agent_llm_latency_ms_bucket{` + labels + `,reasoning_level="",status="success",le="+Inf"} 2`,
		`ai_agent_llm_prompt_tokens_total{` + labels + `,reasoning_level="",status="success"} 24`,
		`ai_agent_llm_completion_tokens_total{` + labels + `,reasoning_level="",status="success"} 6`,
		`ai_agent_final_report_total{agent="chat",call_path="chat",env="test",forced_final_reason="none",headend="openai-completions",mode="server",source="tool-call",synthetic_reason=""} 2`,
	}
	waitMetrics(t, ready.Addr, want)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// collectors starts a local OTLP collector of each transport, closed when
// the test ends.
func collectors(t *testing.T) (httpC, grpcC *otlptest.Collector) {
	t.Helper()
	httpC = otlptest.NewHTTP()
	t.Cleanup(httpC.Close)
	grpcC, err := otlptest.NewGRPC()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(grpcC.Close)
	return httpC, grpcC
}

func TestTracesReachCollectorBeforeServeReturns(t *testing.T) {
	httpC, grpcC := collectors(t)
	cases := []struct {
		name     string
		c        *otlptest.Collector
		protocol string
		endpoint string
		sampler  string
		want     int
	}{
		{"http", httpC, telemetry.ProtocolHTTP, httpC.URL, telemetry.SamplerAlwaysOn, 1},
		{"grpc", grpcC, telemetry.ProtocolGRPC, "grpc://" + grpcC.Addr, telemetry.SamplerParent, 1},
		{"always_off", httpC, telemetry.ProtocolHTTP, httpC.URL, telemetry.SamplerAlwaysOff, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.c.Named("agent.session"))
			relay, _, stop := helper(t, telemetry.Settings{Traces: true, Protocol: tc.protocol, Endpoint: tc.endpoint, Sampler: tc.sampler})
			session(t, relay, "")
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			sessions := tc.c.Named("agent.session")[before:]
			if len(sessions) != tc.want {
				t.Fatalf("session spans = %d, want %d", len(sessions), tc.want)
			}
			if tc.want == 0 {
				return
			}
			s := sessions[0]
			if otlptest.Attr(s, "ai.agent.id") != "chat" || otlptest.Attr(s, "ai.session.txn_id") != "t1" || otlptest.Attr(s, "ai.agent.success") != true {
				t.Fatalf("session attributes = %v", s.GetAttributes())
			}
			var turn, llmSpan bool
			for _, sp := range tc.c.Spans() {
				switch {
				case sp.GetName() == "agent.turn" && string(sp.GetParentSpanId()) == string(s.GetSpanId()):
					turn = true
				case sp.GetName() == "agent.llm" && string(sp.GetTraceId()) == string(s.GetTraceId()):
					llmSpan = otlptest.Attr(sp, "ai.llm.provider") == "mock" && otlptest.Attr(sp, "ai.llm.model") == "m1"
				}
			}
			if !turn || !llmSpan {
				t.Fatalf("turn span under the session: %v; llm span in the trace: %v", turn, llmSpan)
			}
		})
	}
}

func TestSplitEndpoint(t *testing.T) {
	cases := []struct {
		in, host, path string
		insecure, err  bool
	}{
		{"", "", "", false, false},
		{"localhost:4317", "localhost:4317", "/v1/traces", true, false},
		{"grpc://h:4317", "h:4317", "/v1/traces", true, false},
		{"http://h:4318/", "h:4318", "/v1/traces", true, false},
		{"https://h/custom/path", "h", "/custom/path", false, false},
		{"ftp://h", "", "", false, true},
		{"http://", "", "", false, true},
	}
	for _, tc := range cases {
		host, path, insecure, err := splitEndpoint(tc.in)
		if host != tc.host || path != tc.path || insecure != tc.insecure || (err != nil) != tc.err {
			t.Errorf("splitEndpoint(%q) = %q %q %v %v", tc.in, host, path, insecure, err)
		}
	}
}

func TestSampler(t *testing.T) {
	cases := []struct{ name, want string }{
		{telemetry.SamplerAlwaysOn, "AlwaysOnSampler"},
		{telemetry.SamplerAlwaysOff, "AlwaysOffSampler"},
		{telemetry.SamplerRatio, "ParentBased{root:TraceIDRatioBased{0.25}"},
		{telemetry.SamplerParent, "ParentBased{root:AlwaysOnSampler"},
		{"", "ParentBased{root:AlwaysOnSampler"},
	}
	for _, tc := range cases {
		if got := sampler(tc.name, 0.25).Description(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("sampler(%q) = %s, want %s…", tc.name, got, tc.want)
		}
	}
}

// TestMCPServerMetrics: a supervised server's states, through the
// helper, become its up gauge and its restart attempts by outcome.
func TestMCPServerMetrics(t *testing.T) {
	relay, ready, stop := helper(t, telemetry.Settings{Mode: telemetry.ModeServer, Prometheus: true, PrometheusAddr: "127.0.0.1:0"})
	for _, ev := range []telemetry.MCPEvent{
		{Agent: "chat", Server: "fs", Up: true},
		{Agent: "chat", Server: "fs", Error: "connection closed"},
		{Agent: "chat", Server: "fs", Restart: telemetry.RestartError, Error: "spawn failed"},
		{Agent: "chat", Server: "fs", Restart: telemetry.RestartError, Error: "spawn failed"},
		{Agent: "chat", Server: "fs", Up: true, Restart: telemetry.RestartSuccess},
		{Agent: "chat", Server: "web", Up: true},
		{Agent: "chat", Server: "web", Error: "health probe failed"},
	} {
		relay.MCPServer(ev)
	}
	want := []string{
		`ai_agent_mcp_server_up{agent="chat",mode="server",server="fs"} 1`,
		`ai_agent_mcp_server_up{agent="chat",mode="server",server="web"} 0`,
		`ai_agent_mcp_server_restarts_total{agent="chat",mode="server",server="fs",status="error"} 2`,
		`ai_agent_mcp_server_restarts_total{agent="chat",mode="server",server="fs",status="success"} 1`,
	}
	waitMetrics(t, ready.Addr, want)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestServeRefusesBadSettings(t *testing.T) {
	var out strings.Builder
	err := Serve(context.Background(), strings.NewReader("not json\n"), &out, nil)
	if err == nil || !strings.Contains(out.String(), `"error"`) {
		t.Fatalf("err = %v, out = %q", err, out.String())
	}
}

// FuzzServe feeds arbitrary event lines to the helper: it never panics,
// whatever ids, ops and fields the lines carry.
func FuzzServe(f *testing.F) {
	f.Add([]byte(`{"op":"session","id":1,"session":{"Trace":{"AgentID":"a"}}}` + "\n" + `{"op":"end","id":1}` + "\n"))
	f.Add([]byte(`{"op":"llm","id":2,"parent":9,"llm":{}}` + "\n" + `{"op":"end","id":2,"llmEnd":{"Entry":{"tokens":{"inputTokens":-5}}}}` + "\n"))
	f.Add([]byte(`{"op":"tool","id":3}` + "\n" + `{"op":"queue","queue":{"Queue":"q","Wait":-1}}` + "\n" + `not json` + "\n"))
	f.Add([]byte(`{"op":"report","report":{"Turns":-1,"Attempts":-3}}` + "\n" + `{"op":"end","id":3,"toolEnd":{"Latency":-9}}`))
	f.Add([]byte(`{"op":"mcp","mcp":{"server":"s","restart":"\u0000"}}` + "\n" + `{"op":"mcp"}` + "\n"))
	f.Fuzz(func(t *testing.T, events []byte) {
		in := io.MultiReader(strings.NewReader(`{"mode":"cli"}`+"\n"), bytes.NewReader(events))
		if err := Serve(context.Background(), in, io.Discard, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMetricsPushedOverOTLP runs a session through the helper with the
// metrics pushed to a local collector over each transport: at the end of
// Serve the collector holds the original's metric names, with its labels
// (an empty label left out), as delta sums and histograms, and the
// resource names the service.
func TestMetricsPushedOverOTLP(t *testing.T) {
	httpC, grpcC := collectors(t)
	cases := []struct {
		name     string
		c        *otlptest.Collector
		protocol string
		endpoint string
	}{
		{"http", httpC, telemetry.ProtocolHTTP, httpC.URL + "/v1/traces"},
		{"grpc", grpcC, telemetry.ProtocolGRPC, "grpc://" + grpcC.Addr},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			relay, _, stop := helper(t, telemetry.Settings{Mode: telemetry.ModeCLI, Version: "v9", PushMetrics: true,
				MetricsProtocol: tc.protocol, Endpoint: tc.endpoint, Labels: map[string]string{"env": "test"}})
			session(t, relay, "")
			session(t, relay, "")
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			llm := map[string]string{"agent": "chat", "call_path": "chat", "provider": "mock", "model": "m1", "headend": "cli",
				"status": "success", "mode": "cli", "env": "test"}
			checks := []struct {
				name string
				want float64
			}{
				{"ai_agent_llm_requests_total", 2},
				{"ai_agent_llm_prompt_tokens_total", 24},
				{"ai_agent_llm_completion_tokens_total", 6},
				{"ai_agent_llm_latency_ms", 2},
			}
			for _, ck := range checks {
				pts := tc.c.Matching(ck.name, llm)
				var sum float64
				for _, p := range pts {
					if !p.Delta {
						t.Errorf("%s: cumulative point %+v", ck.name, p)
					}
					if _, ok := p.Attrs["reasoning_level"]; ok {
						t.Errorf("%s: empty reasoning_level sent: %v", ck.name, p.Attrs)
					}
					sum += p.Value
				}
				if sum != ck.want {
					t.Errorf("%s = %v over %d points, want %v; all: %+v", ck.name, sum, len(pts), ck.want, tc.c.Points(ck.name))
				}
			}
			report := tc.c.Matching("ai_agent_final_report_total", map[string]string{"source": "tool-call", "forced_final_reason": "none", "headend": "cli"})
			if len(report) == 0 {
				t.Errorf("no final report points: %+v", tc.c.Points("ai_agent_final_report_total"))
			}
			if tc.c.Resource("service.name") != "ai-agent" || tc.c.Resource("service.version") != "v9" || tc.c.Resource("telemetry.label.env") != "test" {
				t.Errorf("resource service.name %q service.version %q", tc.c.Resource("service.name"), tc.c.Resource("service.version"))
			}
		})
	}
}

// TestNewMetrics records the events behind the five metrics the original
// adds to the others (bytes in and out, retries, queue slots in use, the
// guard's remaining tokens) and reads them on /metrics and at the
// collector, with the original's labels.
func TestNewMetrics(t *testing.T) {
	c := otlptest.NewHTTP()
	defer c.Close()
	relay, ready, stop := helper(t, telemetry.Settings{Mode: telemetry.ModeServer, Prometheus: true, PrometheusAddr: "127.0.0.1:0",
		PushMetrics: true, MetricsProtocol: telemetry.ProtocolHTTP, Endpoint: c.URL, MetricInterval: time.Hour})
	ctx, endSession := relay.StartSession(context.Background(), agent.SessionInfo{Trace: agent.Trace{AgentID: "chat", CallPath: "chat"}, Headend: "api"})
	target := agent.LLMTarget{Provider: "p", Model: "m"}
	_, end1 := relay.StartLLM(ctx, target)
	end1(agent.LLMEvent{Attempt: 1, RequestBytes: 100, ResponseBytes: 40, ErrorClass: "server",
		Entry: contract.AccountingEntry{Status: contract.AccountingFail}})
	_, end2 := relay.StartLLM(ctx, target)
	end2(agent.LLMEvent{Attempt: 2, RequestBytes: 100, ResponseBytes: 900, Entry: contract.AccountingEntry{Status: contract.AccountingOK}})
	relay.Queue(ctx, agent.QueueEvent{Queue: "io", Wait: time.Millisecond, Depth: 1, InUse: 2, Waiting: 1, Capacity: 2})
	relay.ContextGuard(ctx, agent.GuardEvent{Trigger: "tool_preflight", Outcome: "forced_final", Measure: &agent.GuardMeasure{Limit: 1000, Projected: 1500, Remaining: 300}})
	relay.ContextGuard(ctx, agent.GuardEvent{Provider: "p", Model: "m", Trigger: "turn_preflight", Outcome: "forced_final", Measure: &agent.GuardMeasure{Limit: 1000, Projected: 1200, Remaining: -50}})
	endSession(agent.SessionEnd{Success: true})

	base := `agent="chat",call_path="chat",headend="api",mode="server",model="m",provider="p",reasoning_level=""`
	guard := func(provider, model, trigger string) string {
		return `ai_agent_context_guard_remaining_tokens{agent="chat",call_path="chat",headend="api",mode="server",model="` + model +
			`",outcome="forced_final",provider="` + provider + `",trigger="` + trigger + `"}`
	}
	want := []string{
		`ai_agent_llm_bytes_in_total{` + base + `,status="error"} 100`,
		`ai_agent_llm_bytes_in_total{` + base + `,status="success"} 100`,
		`ai_agent_llm_bytes_out_total{` + base + `,status="success"} 900`,
		`ai_agent_llm_retries_total{` + base + `,status="success"} 1`,
		`ai_agent_queue_in_use{capacity="2",mode="server",queue="io"} 2`,
		`ai_agent_queue_depth{capacity="2",mode="server",queue="io"} 1`,
		guard("unknown", "unknown", "tool_preflight") + ` 300`,
		guard("p", "m", "turn_preflight") + ` 0`,
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		body := scrape(t, ready.Addr)
		missing := ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
			}
		}
		if strings.Contains(body, `ai_agent_llm_retries_total{`+base+`,status="error"}`) {
			t.Fatalf("the first attempt counted as a retry:\n%s", body)
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %s:\n%s", missing, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	relay.Queue(ctx, agent.QueueEvent{Queue: "io", Released: true, InUse: 1, Capacity: 2})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	total := func(name string, match map[string]string) float64 {
		var s float64
		for _, p := range c.Matching(name, match) {
			s += p.Value
		}
		return s
	}
	if got := total("ai_agent_llm_bytes_out_total", map[string]string{"provider": "p"}); got != 940 {
		t.Errorf("bytes out at the collector = %v", got)
	}
	if got := total("ai_agent_llm_retries_total", map[string]string{"status": "success", "headend": "api"}); got != 1 {
		t.Errorf("retries at the collector = %v", got)
	}
	if pts := c.Matching("ai_agent_queue_in_use", map[string]string{"queue": "io", "capacity": "2"}); len(pts) == 0 || pts[len(pts)-1].Value != 1 {
		t.Errorf("queue in use at the collector = %+v", pts)
	}
	if pts := c.Matching("ai_agent_context_guard_remaining_tokens", map[string]string{"trigger": "tool_preflight"}); len(pts) == 0 || pts[len(pts)-1].Value != 300 {
		t.Errorf("remaining tokens at the collector = %+v", pts)
	}
}

// TestDeltaProducer checks the conversion of the registry into OTLP data:
// each collection carries what changed since the one before.
func TestDeltaProducer(t *testing.T) {
	reg := prometheus.NewRegistry()
	cnt := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "c_total", Help: "c"}, []string{"k"})
	gauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "g", Help: "g"})
	hist := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h", Help: "h", Buckets: []float64{1, 10}})
	reg.MustRegister(cnt, gauge, hist)
	now := time.Unix(100, 0)
	p := newDeltaProducer(reg, func() time.Time { now = now.Add(time.Second); return now })
	collect := func() map[string]metricdata.Aggregation {
		sm, err := p.Produce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]metricdata.Aggregation{}
		for _, s := range sm {
			for _, m := range s.Metrics {
				out[m.Name] = m.Data
			}
		}
		return out
	}
	cnt.WithLabelValues("a").Add(3)
	cnt.WithLabelValues("").Add(1)
	gauge.Set(7)
	hist.Observe(0.5)
	hist.Observe(5)
	hist.Observe(50)
	got := collect()
	sum := got["c_total"].(metricdata.Sum[float64])
	if !sum.IsMonotonic || sum.Temporality != metricdata.DeltaTemporality || len(sum.DataPoints) != 2 {
		t.Fatalf("first counter collection %+v", sum)
	}
	h := got["h"].(metricdata.Histogram[float64]).DataPoints[0]
	if h.Count != 3 || h.Sum != 55.5 || fmt.Sprint(h.Bounds, h.BucketCounts) != "[1 10] [1 1 1]" {
		t.Fatalf("first histogram point %+v", h)
	}
	cnt.WithLabelValues("a").Add(2)
	hist.Observe(5)
	got = collect()
	sum = got["c_total"].(metricdata.Sum[float64])
	if len(sum.DataPoints) != 1 || sum.DataPoints[0].Value != 2 || sum.DataPoints[0].Attributes.Len() != 1 ||
		!sum.DataPoints[0].StartTime.Before(sum.DataPoints[0].Time) {
		t.Fatalf("second counter collection %+v", sum.DataPoints)
	}
	if v, _ := sum.DataPoints[0].Attributes.Value("k"); v.AsString() != "a" {
		t.Fatalf("attributes %v", sum.DataPoints[0].Attributes)
	}
	h = got["h"].(metricdata.Histogram[float64]).DataPoints[0]
	if h.Count != 1 || h.Sum != 5 || fmt.Sprint(h.BucketCounts) != "[0 1 0]" {
		t.Fatalf("second histogram point %+v", h)
	}
	if g := got["g"].(metricdata.Gauge[float64]).DataPoints; len(g) != 1 || g[0].Value != 7 {
		t.Fatalf("gauge %+v", g)
	}
	got = collect()
	if _, ok := got["c_total"]; ok {
		t.Fatalf("an unchanged counter was sent: %+v", got["c_total"])
	}
	if _, ok := got["h"]; ok {
		t.Fatalf("an unchanged histogram was sent")
	}
}

func TestMetricsPath(t *testing.T) {
	for in, want := range map[string]string{"/v1/traces": "/v1/metrics", "": "/v1/metrics", "/otlp/v1/traces/": "/otlp/v1/metrics", "/custom": "/custom/v1/metrics"} {
		if got := metricsPath(in); got != want {
			t.Errorf("metricsPath(%q) = %q, want %q", in, got, want)
		}
	}
}
