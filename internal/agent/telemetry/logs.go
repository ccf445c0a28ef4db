package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/salve-dev/salve/internal/agent"
)

// Log formats of the local sink on stderr, as --telemetry-log-format and
// telemetry.logging.formats spell them.
const (
	LogFormatLogfmt   = "logfmt"
	LogFormatJSON     = "json"
	LogFormatJournald = "journald"
	LogFormatNone     = "none"
)

// LogExtraOTLP is the extra log sink of --telemetry-log-extra and
// telemetry.logging.extra: the OTLP log export.
const LogExtraOTLP = "otlp"

// PickLogFormat returns the first valid entry of formats, lower-cased, as
// the original does ("" when there is none), with a warning for each
// invalid entry before it; what names the setting in the warnings.
func PickLogFormat(formats []string, what string) (format string, warnings []string) {
	for _, f := range formats {
		switch n := strings.ToLower(strings.TrimSpace(f)); n {
		case LogFormatLogfmt, LogFormatJSON, LogFormatJournald, LogFormatNone:
			return n, warnings
		default:
			warnings = append(warnings, fmt.Sprintf("Ignoring invalid %s value '%s'", what, f))
		}
	}
	return "", warnings
}

// LogExtras returns whether extras asks for the OTLP log export, with a
// warning for each entry that is not a known sink.
func LogExtras(extras []string, what string) (otlp bool, warnings []string) {
	for _, e := range extras {
		if strings.EqualFold(strings.TrimSpace(e), LogExtraOTLP) {
			otlp = true
			continue
		}
		warnings = append(warnings, fmt.Sprintf("Ignoring invalid %s value '%s'", what, e))
	}
	return otlp, warnings
}

// LogRecord is one log record on its way to the OTLP log export: the
// original's structured log event. Severity is its severity code (ERR,
// WRN, VRB) and SeverityNumber the OpenTelemetry one; Attrs hold the
// record's attributes and the session's identity (agent, call_path,
// txn_id, parent_txn_id, origin_txn_id, headend).
type LogRecord struct {
	Time           time.Time         `json:"time"`
	Severity       string            `json:"severity"`
	SeverityNumber int               `json:"severityNumber"`
	Message        string            `json:"message"`
	Attrs          map[string]string `json:"attrs,omitempty"`
}

// OpenTelemetry severity numbers of the levels salve logs at.
const (
	severityDebug = 5
	severityInfo  = 9
	severityWarn  = 13
	severityError = 17
)

// severity maps a slog level to the original's severity code and the
// OpenTelemetry severity number: errors are ERR, warnings WRN, and the
// rest (what --verbose shows) VRB.
func severity(l slog.Level) (string, int) {
	switch {
	case l >= slog.LevelError:
		return "ERR", severityError
	case l >= slog.LevelWarn:
		return "WRN", severityWarn
	case l >= slog.LevelInfo:
		return "VRB", severityInfo
	}
	return "VRB", severityDebug
}

// LogSink takes the records a LogHandler exports; *Relay is one.
type LogSink interface {
	Log(LogRecord)
}

// exportLevel is the lowest level exported over OTLP: the verbose records
// go to the collector whether or not --verbose shows them on stderr, as
// the original's structured sinks receive them.
const exportLevel = slog.LevelDebug

// LogHandler is the run's slog.Handler: it writes each record to stderr
// in the chosen format (logfmt, json, or nothing for none) at the
// run's level and, once a sink is attached (the telemetry helper, when
// telemetry.logging.extra holds otlp), hands every record of
// exportLevel and above to the sink as well. Records with no sink
// attached cost no more than the local handler's.
type LogHandler struct {
	root *logRoot
	// ops are the With calls since the root, in order; local caches the
	// root's handler with them applied.
	ops   []logOp
	local *atomic.Pointer[derived]
	// attrs are the With attributes (under their groups) and groups the
	// open group names, for the exported records.
	attrs  []slog.Attr
	groups []string
	// session is the session's identity, added to the exported records
	// only (stderr keeps its own form).
	session []slog.Attr
}

// logRoot is what every handler derived from one NewLogHandler shares.
type logRoot struct {
	w      io.Writer
	level  slog.Leveler
	format atomic.Pointer[slog.Handler]
	sink   atomic.Pointer[sinkBox]
}

type sinkBox struct{ s LogSink }

// logOp is one WithAttrs (attrs) or WithGroup (group) call.
type logOp struct {
	attrs []slog.Attr
	group string
}

// derived is the root's handler (of one format) with the ops applied.
type derived struct {
	root, h slog.Handler
}

// NewLogHandler returns the handler writing to w in format at level.
func NewLogHandler(w io.Writer, format string, level slog.Leveler) *LogHandler {
	root := &logRoot{w: w, level: level}
	h := &LogHandler{root: root, local: &atomic.Pointer[derived]{}}
	h.SetFormat(format)
	return h
}

// SetFormat switches the stderr format of the handler and of every
// handler derived from it: json, none (nothing), or logfmt for any other
// (journald included: salve does not write to the journal, and the
// original falls back to logfmt when the journal is not there).
func (h *LogHandler) SetFormat(format string) {
	opts := &slog.HandlerOptions{Level: h.root.level}
	var local slog.Handler
	switch format {
	case LogFormatJSON:
		local = slog.NewJSONHandler(h.root.w, opts)
	case LogFormatNone:
		local = slog.DiscardHandler
	default:
		local = slog.NewTextHandler(h.root.w, opts)
	}
	h.root.format.Store(&local)
}

// handler is the local handler of the current format, with the ops.
func (h *LogHandler) handler() slog.Handler {
	root := *h.root.format.Load()
	if d := h.local.Load(); d != nil && d.root == root {
		return d.h
	}
	l := root
	for _, op := range h.ops {
		if op.group != "" {
			l = l.WithGroup(op.group)
		} else {
			l = l.WithAttrs(op.attrs)
		}
	}
	h.local.Store(&derived{root: root, h: l})
	return l
}

// Attach makes the handler, and every handler derived from it, export
// its records to s from now on; nil stops the export.
func (h *LogHandler) Attach(s LogSink) {
	if s == nil {
		h.root.sink.Store(nil)
		return
	}
	h.root.sink.Store(&sinkBox{s})
}

// derive is a copy of h with its own cache.
func (h *LogHandler) derive() *LogHandler {
	c := *h
	c.local = &atomic.Pointer[derived]{}
	return &c
}

// ForSession returns a handler whose exported records carry the
// session's identity: its tracing ids and its headend.
func (h *LogHandler) ForSession(t agent.Trace, headend string) *LogHandler {
	c := h.derive()
	c.local = h.local
	c.session = nil
	for _, kv := range [][2]string{{"agent", t.AgentID}, {"call_path", t.CallPath}, {"txn_id", t.TxnID},
		{"parent_txn_id", t.ParentTxnID}, {"origin_txn_id", t.OriginTxnID}, {"headend", headend}} {
		if kv[1] != "" {
			c.session = append(c.session, slog.String(kv[0], kv[1]))
		}
	}
	return c
}

// Enabled implements slog.Handler.
func (h *LogHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if l >= exportLevel && h.root.sink.Load() != nil {
		return true
	}
	return h.handler().Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if local := h.handler(); local.Enabled(ctx, r.Level) {
		err = local.Handle(ctx, r)
	}
	if b := h.root.sink.Load(); b != nil && r.Level >= exportLevel {
		b.s.Log(h.record(r))
	}
	return err
}

// record is r as a LogRecord.
func (h *LogHandler) record(r slog.Record) LogRecord {
	sev, num := severity(r.Level)
	rec := LogRecord{Time: r.Time, Severity: sev, SeverityNumber: num, Message: clip(r.Message),
		Attrs: make(map[string]string, len(h.session)+len(h.attrs)+r.NumAttrs())}
	for _, a := range h.session {
		flatten(rec.Attrs, "", a)
	}
	for _, a := range h.attrs {
		flatten(rec.Attrs, "", a)
	}
	prefix := strings.Join(h.groups, ".")
	if prefix != "" {
		prefix += "."
	}
	r.Attrs(func(a slog.Attr) bool {
		flatten(rec.Attrs, prefix, a)
		return true
	})
	return rec
}

// flatten writes a into m as strings, a group's members under
// "group.key".
func flatten(m map[string]string, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			flatten(m, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	m[prefix+a.Key] = clip(v.String())
}

// maxLogValue bounds the message and each attribute value of an exported
// record (a traced payload can be megabytes); a longer one is cut.
const maxLogValue = 16 << 10

func clip(s string) string {
	if len(s) <= maxLogValue {
		return s
	}
	return strings.ToValidUTF8(s[:maxLogValue], "") + "…"
}

// WithAttrs implements slog.Handler.
func (h *LogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	c := h.derive()
	c.ops = append(append([]logOp{}, h.ops...), logOp{attrs: as})
	prefix := strings.Join(h.groups, ".")
	if prefix != "" {
		as = []slog.Attr{{Key: prefix, Value: slog.GroupValue(as...)}}
	}
	c.attrs = append(append([]slog.Attr{}, h.attrs...), as...)
	return c
}

// WithGroup implements slog.Handler.
func (h *LogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := h.derive()
	c.ops = append(append([]logOp{}, h.ops...), logOp{group: name})
	c.groups = append(append([]string{}, h.groups...), name)
	return c
}
