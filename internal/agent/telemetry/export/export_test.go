package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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

func TestTracesReachCollectorBeforeServeReturns(t *testing.T) {
	httpC := otlptest.NewHTTP()
	defer httpC.Close()
	grpcC, err := otlptest.NewGRPC()
	if err != nil {
		t.Fatal(err)
	}
	defer grpcC.Close()
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
