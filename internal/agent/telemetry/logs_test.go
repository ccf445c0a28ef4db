package telemetry

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/salve-dev/salve/internal/agent"
)

func TestPickLogFormat(t *testing.T) {
	cases := []struct {
		in       []string
		want     string
		warnings int
	}{
		{nil, "", 0},
		{[]string{"json"}, LogFormatJSON, 0},
		{[]string{"JSON", "logfmt"}, LogFormatJSON, 0},
		{[]string{"xml", " None "}, LogFormatNone, 1},
		{[]string{"journald"}, LogFormatJournald, 0},
		{[]string{"a", "b"}, "", 2},
	}
	for _, tc := range cases {
		got, w := PickLogFormat(tc.in, "--telemetry-log-format")
		if got != tc.want || len(w) != tc.warnings {
			t.Errorf("PickLogFormat(%q) = %q, %q; want %q with %d warnings", tc.in, got, w, tc.want, tc.warnings)
		}
	}
	if _, w := PickLogFormat([]string{"xml"}, "--telemetry-log-format"); len(w) != 1 || w[0] != "Ignoring invalid --telemetry-log-format value 'xml'" {
		t.Errorf("warning %q", w)
	}
}

func TestLogExtras(t *testing.T) {
	cases := []struct {
		in       []string
		otlp     bool
		warnings int
	}{
		{nil, false, 0},
		{[]string{"otlp"}, true, 0},
		{[]string{"OTLP", "otlp"}, true, 0},
		{[]string{"syslog"}, false, 1},
	}
	for _, tc := range cases {
		got, w := LogExtras(tc.in, "telemetry.logging.extra")
		if got != tc.otlp || len(w) != tc.warnings {
			t.Errorf("LogExtras(%q) = %v, %q", tc.in, got, w)
		}
	}
}

// TestLogHandlerFormats writes one warning in each format and reads it
// back in that format's syntax.
func TestLogHandlerFormats(t *testing.T) {
	cases := []struct {
		format string
		check  func(t *testing.T, out string)
	}{
		{LogFormatLogfmt, func(t *testing.T, out string) {
			if !strings.Contains(out, `level=WARN msg="tool failed" tool=web`) {
				t.Errorf("logfmt %q", out)
			}
		}},
		{LogFormatJournald, func(t *testing.T, out string) {
			if !strings.Contains(out, `level=WARN msg="tool failed" tool=web`) {
				t.Errorf("journald is not written as logfmt: %q", out)
			}
		}},
		{LogFormatJSON, func(t *testing.T, out string) {
			var m map[string]any
			if err := json.Unmarshal([]byte(out), &m); err != nil || m["msg"] != "tool failed" || m["tool"] != "web" || m["level"] != "WARN" {
				t.Errorf("json %q: %v %v", out, m, err)
			}
		}},
		{LogFormatNone, func(t *testing.T, out string) {
			if out != "" {
				t.Errorf("none wrote %q", out)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(NewLogHandler(&buf, tc.format, slog.LevelWarn))
			log.Debug("hidden")
			log.Warn("tool failed", "tool", "web")
			tc.check(t, buf.String())
		})
	}
}

// TestLogHandlerSetFormat switches the format after loggers were derived
// from the handler: they follow, with their attributes.
func TestLogHandlerSetFormat(t *testing.T) {
	var buf bytes.Buffer
	h := NewLogHandler(&buf, "", slog.LevelInfo)
	derived := slog.New(h).With("agent", "a1").WithGroup("g")
	derived.Info("one", "k", "v")
	if !strings.Contains(buf.String(), `msg=one agent=a1 g.k=v`) {
		t.Fatalf("logfmt %q", buf.String())
	}
	buf.Reset()
	h.SetFormat(LogFormatJSON)
	derived.Info("two", "k", "v")
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("not json after SetFormat: %q", buf.String())
	}
	if m["agent"] != "a1" || !reflect.DeepEqual(m["g"], map[string]any{"k": "v"}) {
		t.Errorf("json %v", m)
	}
}

type sinkRecorder struct {
	mu   sync.Mutex
	recs []LogRecord
}

func (s *sinkRecorder) Log(r LogRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recs = append(s.recs, r)
}

// TestLogHandlerExport: once attached, the sink gets every record from
// debug up, with the With attributes, groups and the session's identity,
// while stderr keeps its level and its own form.
func TestLogHandlerExport(t *testing.T) {
	var buf bytes.Buffer
	h := NewLogHandler(&buf, LogFormatLogfmt, slog.LevelWarn)
	root := slog.New(h)
	root.Warn("before attach")
	sink := &sinkRecorder{}
	h.Attach(sink)
	trace := agent.Trace{AgentID: "chat", CallPath: "chat", TxnID: "t1", OriginTxnID: "t1"}
	log := slog.New(h.ForSession(trace, "api")).With("turn", 2)
	log.Debug("llm response", "provider", "mock", "model", "m1")
	log.WithGroup("usage").Warn("rate limited", "wait", "1s")
	log.Error("tool failed", slog.Group("tool", "name", "web"))
	root.Info("no session")

	if len(sink.recs) != 4 {
		t.Fatalf("%d records exported, want 4: %+v", len(sink.recs), sink.recs)
	}
	want := []struct {
		msg, sev string
		num      int
		attrs    map[string]string
	}{
		{"llm response", "VRB", severityDebug, map[string]string{"agent": "chat", "call_path": "chat", "txn_id": "t1", "origin_txn_id": "t1",
			"headend": "api", "turn": "2", "provider": "mock", "model": "m1"}},
		{"rate limited", "WRN", severityWarn, map[string]string{"agent": "chat", "call_path": "chat", "txn_id": "t1", "origin_txn_id": "t1",
			"headend": "api", "turn": "2", "usage.wait": "1s"}},
		{"tool failed", "ERR", severityError, map[string]string{"agent": "chat", "call_path": "chat", "txn_id": "t1", "origin_txn_id": "t1",
			"headend": "api", "turn": "2", "tool.name": "web"}},
		{"no session", "VRB", severityInfo, map[string]string{}},
	}
	for i, w := range want {
		r := sink.recs[i]
		if r.Message != w.msg || r.Severity != w.sev || r.SeverityNumber != w.num || !reflect.DeepEqual(r.Attrs, w.attrs) || r.Time.IsZero() {
			t.Errorf("record %d = %+v; want %+v", i, r, w)
		}
	}
	out := buf.String()
	for _, s := range []string{"before attach", "rate limited", "tool failed"} {
		if !strings.Contains(out, s) {
			t.Errorf("stderr lacks %q: %q", s, out)
		}
	}
	for _, s := range []string{"llm response", "no session", "txn_id"} {
		if strings.Contains(out, s) {
			t.Errorf("stderr shows %q below its level or the exported identity: %q", s, out)
		}
	}
	h.Attach(nil)
	log.Warn("after detach")
	if len(sink.recs) != 4 {
		t.Errorf("exported after detach: %+v", sink.recs[4:])
	}
}

// TestRelayLog sends a record through the relay as one OpLog line.
func TestRelayLog(t *testing.T) {
	var buf bytes.Buffer
	r := NewRelay(&buf, nil)
	r.Log(LogRecord{Severity: "WRN", SeverityNumber: severityWarn, Message: "m", Attrs: map[string]string{"k": "v"}})
	var m Message
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Op != OpLog || m.Log == nil || m.Log.Message != "m" || m.Log.Attrs["k"] != "v" {
		t.Errorf("line %q", buf.String())
	}
}

// TestLogHandlerClipsLongValues: a traced payload does not go to the
// helper whole.
func TestLogHandlerClipsLongValues(t *testing.T) {
	h := NewLogHandler(&bytes.Buffer{}, LogFormatNone, slog.LevelWarn)
	sink := &sinkRecorder{}
	h.Attach(sink)
	long := strings.Repeat("é", maxLogValue)
	slog.New(h).Debug(long, "payload", long, "short", "s")
	r := sink.recs[0]
	for name, v := range map[string]string{"message": r.Message, "payload": r.Attrs["payload"]} {
		if len(v) > maxLogValue+len("…") || !strings.HasSuffix(v, "…") || !utf8.ValidString(v) {
			t.Errorf("%s: %d bytes, valid %v", name, len(v), utf8.ValidString(v))
		}
	}
	if r.Attrs["short"] != "s" {
		t.Errorf("short = %q", r.Attrs["short"])
	}
}
