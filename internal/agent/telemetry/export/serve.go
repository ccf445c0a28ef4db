package export

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/telemetry"
)

// maxLine bounds one input line.
const maxLine = 4 << 20

// Serve is the helper: it reads the Settings line from in, starts the
// Recorder, writes the telemetry.Ready line to out, then replays every
// Message until in ends, and shuts the Recorder down (flushing the
// spans, sending the queued log records) within the longer of the
// export and log timeouts plus a second. Malformed lines are
// logged (log may be nil) and skipped.
func Serve(ctx context.Context, in io.Reader, out io.Writer, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	if !sc.Scan() {
		return fmt.Errorf("telemetry helper: no settings line: %v", sc.Err())
	}
	var set telemetry.Settings
	if err := json.Unmarshal(sc.Bytes(), &set); err != nil {
		err = fmt.Errorf("bad settings line: %w", err)
		return ready(out, telemetry.Ready{Error: err.Error()}, err)
	}
	rec, err := Start(ctx, set, log)
	if err != nil {
		return ready(out, telemetry.Ready{Error: err.Error()}, err)
	}
	if err := ready(out, telemetry.Ready{Addr: rec.Addr(), Warning: rec.Warning}, nil); err != nil {
		return err
	}
	rp := newReplayer(rec)
	for sc.Scan() {
		var m telemetry.Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			log.Warn("telemetry helper: bad event line", "error", err)
			continue
		}
		rp.apply(ctx, m)
	}
	if err := sc.Err(); err != nil {
		log.Warn("telemetry helper: input", "error", err)
	}
	rp.endAll()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), max(rec.set.Timeout, rec.set.LogsTimeout)+timeoutSlack)
	defer cancel()
	return rec.Shutdown(sctx)
}

func ready(out io.Writer, r telemetry.Ready, err error) error {
	b, _ := json.Marshal(r)
	if _, werr := out.Write(append(b, '\n')); werr != nil && err == nil {
		err = werr
	}
	return err
}

// step is one open span: its context and how to end it.
type step struct {
	ctx context.Context
	end func(m telemetry.Message)
}

// replayer turns Messages back into Recorder calls.
type replayer struct {
	rec   *Recorder
	steps map[uint64]step
}

func newReplayer(rec *Recorder) *replayer { return &replayer{rec: rec, steps: map[uint64]step{}} }

func (rp *replayer) parent(ctx context.Context, id uint64) context.Context {
	if s, ok := rp.steps[id]; ok {
		return s.ctx
	}
	return ctx
}

func (rp *replayer) apply(ctx context.Context, m telemetry.Message) {
	pctx := rp.parent(ctx, m.Parent)
	r := rp.rec
	switch m.Op {
	case telemetry.OpSession:
		if m.Session == nil {
			return
		}
		c, end := r.StartSession(pctx, *m.Session)
		rp.steps[m.ID] = step{c, func(e telemetry.Message) { end(deref(e.SessionEnd)) }}
	case telemetry.OpTurn:
		c, end := r.StartTurn(pctx, m.Turn)
		rp.steps[m.ID] = step{c, func(telemetry.Message) { end() }}
	case telemetry.OpLLM:
		if m.LLM == nil {
			return
		}
		c, end := r.StartLLM(pctx, *m.LLM)
		rp.steps[m.ID] = step{c, func(e telemetry.Message) { end(deref(e.LLMEnd)) }}
	case telemetry.OpTool:
		c, end := r.StartTool(pctx, m.ToolName)
		rp.steps[m.ID] = step{c, func(e telemetry.Message) { end(deref(e.ToolEnd)) }}
	case telemetry.OpEnd:
		if s, ok := rp.steps[m.ID]; ok {
			delete(rp.steps, m.ID)
			s.end(m)
		}
	case telemetry.OpQueue:
		if m.Queue != nil {
			r.Queue(pctx, *m.Queue)
		}
	case telemetry.OpGuard:
		if m.Guard != nil {
			r.ContextGuard(pctx, *m.Guard)
		}
	case telemetry.OpReport:
		if m.Report != nil {
			r.FinalReport(pctx, *m.Report)
		}
	case telemetry.OpCollapse:
		r.RetryCollapse(pctx, m.Reason)
	case telemetry.OpMCP:
		if m.MCP != nil {
			r.MCPServer(*m.MCP)
		}
	case telemetry.OpLog:
		if m.Log != nil {
			r.Log(*m.Log)
		}
	}
}

// endAll ends the steps still open when the input ended (a killed run),
// so their spans are exported.
func (rp *replayer) endAll() {
	for id, s := range rp.steps {
		delete(rp.steps, id)
		s.end(telemetry.Message{SessionEnd: &agent.SessionEnd{Error: "telemetry input ended before the session"}})
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
