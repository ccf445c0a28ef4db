package heal

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
)

type nopProgress struct{}

func (nopProgress) Stage(int, string, int) {}
func (nopProgress) Log(string, ...any)     {}
func (nopProgress) Done()                  {}

// NewProgress returns the progress display: on a TTY a status line that is
// rewritten in place (stage, iteration, bugs fixed so far), otherwise one
// plain log line per stage through logger.
func NewProgress(w io.Writer, tty bool, logger *slog.Logger) Progress {
	if tty {
		return &ttyProgress{w: w}
	}
	return &logProgress{l: logger}
}

type ttyProgress struct {
	mu   sync.Mutex
	w    io.Writer
	last int
}

func (p *ttyProgress) Stage(iter int, stage string, fixed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("salve heal · iteration %d · %-14s · %d fixed", iter, stage, fixed)
	pad := max(0, p.last-len(line))
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
	p.last = len(line)
}

func (p *ttyProgress) Log(msg string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%*s\r%s %s\n", p.last, "", msg, fmt.Sprint(args...))
	p.last = 0
}

func (p *ttyProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.last, "")
	}
	p.last = 0
}

type logProgress struct{ l *slog.Logger }

func (p *logProgress) Stage(iter int, stage string, fixed int) {
	if p.l != nil {
		p.l.Info("heal progress", "iteration", iter, "stage", stage, "fixed", fixed)
	}
}

func (p *logProgress) Log(msg string, args ...any) {
	if p.l != nil {
		p.l.Info(msg, args...)
	}
}

func (p *logProgress) Done() {}
