package export

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"

	"github.com/salve-dev/salve/internal/agent/telemetry"
	"github.com/salve-dev/salve/internal/agent/telemetry/otlptest"
)

// TestLogsThroughTheHelper sends log records through Serve, as
// ai-agent does, over each transport; when Serve returns, the collector
// holds them with their body, severity, attributes, the labels and the
// resource.
func TestLogsThroughTheHelper(t *testing.T) {
	collectors, stop, err := otlptest.Transports()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	httpC := collectors[1]
	cases := append(collectors, otlptest.Transport{Name: "http path beside traces", Endpoint: httpC.Endpoint + "/v1/traces", Protocol: httpC.Protocol, C: httpC.C})
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			before := len(tc.C.Logs())
			relay, _, end := helper(t, telemetry.Settings{Mode: telemetry.ModeServer, Version: "1.2.3", Labels: map[string]string{"env": "test"},
				Logs: true, LogsEndpoint: tc.Endpoint, LogsProtocol: tc.Protocol, Timeout: 2 * time.Second})
			at := time.Unix(1700000000, 5)
			relay.Log(telemetry.LogRecord{Time: at, Severity: "WRN", SeverityNumber: 13, Message: "tool failed",
				Attrs: map[string]string{"tool": "web", "txn_id": "t1"}})
			relay.Log(telemetry.LogRecord{Time: at, Severity: "VRB", SeverityNumber: 5, Message: "llm response"})
			if err := end(); err != nil {
				t.Fatal(err)
			}
			recs := tc.C.Logs()[before:]
			if len(recs) != 2 {
				t.Fatalf("%d records at the collector, want 2", len(recs))
			}
			r := recs[0]
			attrs := otlptest.LogAttrs(r)
			if r.GetBody().GetStringValue() != "tool failed" || r.GetSeverityText() != "WRN" || r.GetSeverityNumber() != logspb.SeverityNumber_SEVERITY_NUMBER_WARN ||
				r.GetTimeUnixNano() != uint64(at.UnixNano()) {
				t.Errorf("record %v", r)
			}
			for k, v := range map[string]string{"tool": "web", "txn_id": "t1", "label.env": "test", "label.mode": "server"} {
				if attrs[k] != v {
					t.Errorf("attribute %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
				}
			}
			if recs[1].GetSeverityNumber() != logspb.SeverityNumber_SEVERITY_NUMBER_DEBUG || recs[1].GetSeverityText() != "VRB" {
				t.Errorf("second record %v", recs[1])
			}
			if tc.C.LogResource("service.name") != "ai-agent" || tc.C.LogResource("service.version") != "1.2.3" {
				t.Errorf("resource %q %q", tc.C.LogResource("service.name"), tc.C.LogResource("service.version"))
			}
		})
	}
}

// blackHole is a collector that takes connections and never answers.
func blackHole(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String()
}

// TestLogExportToADeadCollector: with a collector that never answers,
// emitting never blocks, the records past the queue are dropped and
// counted, and shutdown drops the rest after one failed batch rather
// than waiting a timeout per batch.
func TestLogExportToADeadCollector(t *testing.T) {
	for _, proto := range []string{telemetry.ProtocolGRPC, telemetry.ProtocolHTTP} {
		t.Run(proto, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			rec, err := Start(context.Background(), telemetry.Settings{Mode: telemetry.ModeCLI, Logs: true, LogsEndpoint: blackHole(t),
				LogsProtocol: proto, LogsTimeout: 100 * time.Millisecond}, log)
			if err != nil {
				t.Fatal(err)
			}
			const n = 3 * logQueueSize
			for i := range n {
				rec.Log(telemetry.LogRecord{Time: time.Now(), Severity: "VRB", Message: "m", SeverityNumber: i})
			}
			if rec.logs.dropped.Load() == 0 {
				t.Errorf("no record dropped after %d emits into a queue of %d", n, logQueueSize)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := rec.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if got := rec.logs.dropped.Load() + rec.logs.failed.Load(); got != n {
				t.Errorf("dropped %d + failed %d = %d, want every one of %d", rec.logs.dropped.Load(), rec.logs.failed.Load(), got, n)
			}
			out := logs.String()
			if strings.Count(out, "OTLP log export failed") != 1 || !strings.Contains(out, "OTLP log records dropped") {
				t.Errorf("logs:\n%s", out)
			}
		})
	}
}

func TestLogsPath(t *testing.T) {
	for in, want := range map[string]string{"": "/v1/logs", "/": "/v1/logs", "/v1/traces": "/v1/logs", "/otlp/v1/traces": "/otlp/v1/logs", "/otlp": "/otlp/v1/logs"} {
		if got := logsPath(in); got != want {
			t.Errorf("logsPath(%q) = %q, want %q", in, got, want)
		}
	}
}
