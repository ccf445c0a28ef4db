package heal

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
)

type nopProgress struct{}

func (nopProgress) Stage(int, string, int) {}
func (nopProgress) Focus(string)           {}
func (nopProgress) Log(string, ...any)     {}
func (nopProgress) Done()                  {}

// ProgressMode says how a heal shows its progress.
type ProgressMode int

const (
	// ProgressOff shows nothing (--quiet).
	ProgressOff ProgressMode = iota
	// ProgressTTY rewrites one status line in place: elapsed time,
	// iteration, stage (and tier), the bug being fixed, bugs fixed so far;
	// the elapsed time ticks every second.
	ProgressTTY
	// ProgressLines prints one plain line per stage, for CI logs.
	ProgressLines
	// ProgressEvents logs one record per stage through the logger (for
	// --log-format json).
	ProgressEvents
)

// tickEvery is how often the TTY line's elapsed time is redrawn.
const tickEvery = time.Second

// NewProgress returns the progress display of mode, writing to w (a TTY
// line or plain lines) or to logger (events). Stdout is never written.
func NewProgress(w io.Writer, mode ProgressMode, logger *slog.Logger) Progress {
	return newProgress(w, mode, logger, time.Now, tickEvery)
}

func newProgress(w io.Writer, mode ProgressMode, logger *slog.Logger, now func() time.Time, tick time.Duration) Progress {
	switch mode {
	case ProgressTTY:
		p := &ttyProgress{w: w, now: now, start: now(), stop: make(chan struct{})}
		if tick > 0 {
			go p.ticks(tick)
		}
		return p
	case ProgressLines:
		return &lineProgress{w: w, now: now, start: now()}
	case ProgressEvents:
		return &logProgress{l: logger}
	}
	return nopProgress{}
}

// progressState is what the displays show.
type progressState struct {
	iter  int
	stage string
	bug   string
	fixed int
}

func (s progressState) String() string {
	parts := []string{fmt.Sprintf("iteration %d", s.iter), s.stage}
	if s.bug != "" && strings.HasPrefix(s.stage, results.StageFix) {
		parts = append(parts, s.bug)
	}
	return strings.Join(parts, " · ") + fmt.Sprintf(" · %d fixed", s.fixed)
}

// elapsed renders a duration as a person reads it in a log: 4.2s, 1m03s.
func elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
}

type ttyProgress struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	start time.Time
	st    progressState
	shown bool
	last  int
	stop  chan struct{}
	done  bool
}

func (p *ttyProgress) ticks(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.shown && !p.done {
				p.draw()
			}
			p.mu.Unlock()
		}
	}
}

// draw rewrites the line; p.mu is held.
func (p *ttyProgress) draw() {
	line := "salve heal · " + elapsed(p.now().Sub(p.start)) + " · " + p.st.String()
	pad := max(0, p.last-len(line))
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
	p.last = len(line)
}

func (p *ttyProgress) Stage(iter int, stage string, fixed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.iter, p.st.stage, p.st.fixed, p.shown = iter, stage, fixed, true
	p.draw()
}

func (p *ttyProgress) Focus(bug string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.bug = bug
}

func (p *ttyProgress) Log(msg string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%*s\r%s %s\n", p.last, "", msg, fmt.Sprint(args...))
	p.last = 0
	if p.shown {
		p.draw()
	}
}

func (p *ttyProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	close(p.stop)
	if p.last > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.last, "")
	}
	p.last = 0
}

// lineProgress prints a line per stage: a CI log shows what the heal is
// doing and how long each step took to start.
type lineProgress struct {
	mu    sync.Mutex
	w     io.Writer
	now   func() time.Time
	start time.Time
	st    progressState
}

func (p *lineProgress) Stage(iter int, stage string, fixed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.iter, p.st.stage, p.st.fixed = iter, stage, fixed
	fmt.Fprintf(p.w, "salve heal: %s %s\n", elapsed(p.now().Sub(p.start)), p.st)
}

func (p *lineProgress) Focus(bug string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.bug = bug
}

func (p *lineProgress) Log(msg string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "salve heal: %s %s\n", msg, fmt.Sprint(args...))
}

func (p *lineProgress) Done() {}

type logProgress struct {
	mu  sync.Mutex
	l   *slog.Logger
	bug string
}

func (p *logProgress) Stage(iter int, stage string, fixed int) {
	if p.l == nil {
		return
	}
	p.mu.Lock()
	bug := p.bug
	p.mu.Unlock()
	args := []any{"iteration", iter, "stage", stage, "fixed", fixed}
	if bug != "" && strings.HasPrefix(stage, results.StageFix) {
		args = append(args, "bug", bug)
	}
	p.l.Info("heal progress", args...)
}

func (p *logProgress) Focus(bug string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bug = bug
}

func (p *logProgress) Log(msg string, args ...any) {
	if p.l != nil {
		p.l.Info(msg, args...)
	}
}

func (p *logProgress) Done() {}
