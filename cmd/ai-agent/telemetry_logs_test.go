package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"github.com/salve-dev/salve/internal/agent/telemetry/otlptest"
	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/llm/llmtest"
)

// logSession runs one CLI session through the built binary against a
// local LLM server that fails the first attempt (a warning) and then
// answers; telemetry, when set, is the config's telemetry section. It
// returns stdout and stderr.
func logSession(t *testing.T, bin string, env []string, telemetry string, args ...string) (string, string) {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Push(llmtest.ServerError(500),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "agent__final_report", Arguments: `{"report_format":"pipe","report_content":"done"}`}}})
	dir := t.TempDir()
	cfg := `{"providers":{"mock":{"type":"openai","baseUrl":"` + srv.OpenAIBaseURL() + `","apiKey":"k","models":{"m1":{}}}}`
	if telemetry != "" {
		cfg += `,"telemetry":` + telemetry
	}
	cfg += "}"
	if err := os.WriteFile(filepath.Join(dir, ".ai-agent.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(append([]string{"--models", "mock/m1", "--tooling-transport", "native"}, args...), "sys", "go")...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+filepath.Join(dir, "home")), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ai-agent: %v\n%s", err, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("ai-agent hung:\n%s", stderr.String())
	}
	if strings.TrimSpace(stdout.String()) != "done" {
		t.Fatalf("stdout %q\n%s", stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// findLog returns the first record with that body.
func findLog(recs []*logspb.LogRecord, body string) *logspb.LogRecord {
	for _, r := range recs {
		if r.GetBody().GetStringValue() == body {
			return r
		}
	}
	return nil
}

// TestTelemetryLogsReachCollector runs a session with --telemetry-log-extra
// otlp over each transport: when ai-agent has exited, the collector holds
// the session's log records (the warning of the failed attempt and the
// verbose LLM records stderr does not show) with the resource, the
// session's identity, the LLM's attributes and the labels.
func TestTelemetryLogsReachCollector(t *testing.T) {
	bin := telemetryBinaries(t)
	collectors, stop, err := otlptest.Transports()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, tc := range collectors {
		t.Run(tc.Name, func(t *testing.T) {
			// The metrics go to the gRPC collector; the logs to their own
			// endpoint, over their own protocol.
			_, stderr := logSession(t, bin, []string{"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=" + tc.Protocol}, "", "--telemetry-enabled",
				"--telemetry-log-extra", "otlp", "--telemetry-label", "env=test", "--telemetry-otlp-endpoint", collectors[0].Endpoint,
				"--telemetry-logging-otlp-endpoint", tc.Endpoint)
			recs := tc.C.Logs()
			warn := findLog(recs, "llm attempt failed")
			resp := findLog(recs, "llm response")
			if warn == nil || resp == nil {
				t.Fatalf("records at the collector lack the warning or the llm response: %v\nstderr:\n%s", recs, stderr)
			}
			if warn.GetSeverityText() != "WRN" || warn.GetSeverityNumber() != logspb.SeverityNumber_SEVERITY_NUMBER_WARN {
				t.Errorf("warning severity %s %v", warn.GetSeverityText(), warn.GetSeverityNumber())
			}
			attrs := otlptest.LogAttrs(resp)
			for k, v := range map[string]string{"agent": "main", "call_path": "main", "provider": "mock", "model": "m1", "label.mode": "cli", "label.env": "test"} {
				if attrs[k] != v {
					t.Errorf("llm response attribute %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
				}
			}
			if attrs["txn_id"] == "" || attrs["origin_txn_id"] != attrs["txn_id"] {
				t.Errorf("txn ids %q %q", attrs["txn_id"], attrs["origin_txn_id"])
			}
			if tc.C.LogResource("service.name") != "ai-agent" || tc.C.LogResource("service.version") != buildinfo.Version(version) || tc.C.LogResource("service.version") == "" {
				t.Errorf("resource %q %q", tc.C.LogResource("service.name"), tc.C.LogResource("service.version"))
			}
			// stderr keeps its own level and form: the warning, not the
			// verbose records.
			if !strings.Contains(stderr, `level=WARN msg="llm attempt failed"`) || strings.Contains(stderr, "llm response") ||
				strings.Contains(stderr, "stopped taking events") {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}

// TestTelemetryLogsDeadCollector: a collector that takes the connection
// and never answers, and one that is not there, neither fail nor hang
// the session; the failure is logged on stderr.
func TestTelemetryLogsDeadCollector(t *testing.T) {
	bin := telemetryBinaries(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	silent := ln.Addr().String()
	defer ln.Close()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := gone.Addr().String()
	_ = gone.Close()
	for name, ep := range map[string]string{"silent": silent, "closed": closed} {
		t.Run(name, func(t *testing.T) {
			_, stderr := logSession(t, bin, nil, "", "--telemetry-enabled", "--telemetry-log-extra", "otlp",
				"--telemetry-otlp-endpoint", "grpc://"+closed, "--telemetry-logging-otlp-endpoint", "grpc://"+ep, "--telemetry-logging-otlp-timeout-ms", "300")
			if !strings.Contains(stderr, "OTLP log export failed") {
				t.Errorf("stderr does not report the failed export:\n%s", stderr)
			}
		})
	}
}

// TestTelemetryLogFormat: --telemetry-log-format json writes stderr as
// JSON lines, and telemetry.logging.formats in the config does the same
// when the flag is absent; none writes no log at all. The format needs
// no telemetry.
func TestTelemetryLogFormat(t *testing.T) {
	bin := aiAgentBinary(t)
	cases := []struct {
		name string
		cfg  string
		args []string
		json bool
		none bool
	}{
		{"default logfmt", "", nil, false, false},
		{"flag json", "", []string{"--telemetry-log-format", "json"}, true, false},
		{"flag none", "", []string{"--telemetry-log-format", "none"}, false, true},
		{"invalid then json", "", []string{"--telemetry-log-format", "xml,json"}, true, false},
		{"config json", `{"logging":{"formats":["json"]}}`, nil, true, false},
		{"flag beats config", `{"logging":{"formats":["json"]}}`, []string{"--telemetry-log-format", "logfmt"}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr := logSession(t, bin, nil, tc.cfg, tc.args...)
			checkLogLines(t, stderr, tc.json, tc.none)
		})
	}
}

// checkLogLines checks the log lines of stderr (those that are not the
// progress lines) for the format.
func checkLogLines(t *testing.T, stderr string, isJSON, none bool) {
	t.Helper()
	var logLines []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "llm attempt failed") {
			logLines = append(logLines, l)
		}
	}
	if none {
		if len(logLines) != 0 {
			t.Errorf("none wrote logs:\n%s", stderr)
		}
		return
	}
	if len(logLines) == 0 {
		t.Fatalf("no log line:\n%s", stderr)
	}
	for _, l := range logLines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); (err == nil) != isJSON {
			t.Errorf("line %q: json %v, want %v", l, err == nil, isJSON)
		}
	}
}
