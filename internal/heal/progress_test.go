package heal

import (
	"bytes"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fakeClock advances by step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		now := t
		t = t.Add(step)
		return now
	}
}

// script plays one heal's progress calls.
func script(p Progress) {
	p.Stage(0, results.StageSetup, 0)
	p.Stage(0, results.StageBuild, 0)
	p.Stage(1, results.StageRerun, 0)
	p.Focus("calc/calc.go:12")
	p.Stage(1, results.StageFix+":rules", 0)
	p.Stage(1, results.StageFix+":llm", 0)
	p.Stage(1, results.StageVerify, 0)
	p.Stage(1, results.StageCommit, 1)
	p.Done()
}

// TestProgressGolden records what a terminal, a CI log and a JSON log
// show of one heal's progress (go test -update rewrites the files).
func TestProgressGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode ProgressMode
	}{
		{"tty", ProgressTTY},
		{"lines", ProgressLines},
		{"events", ProgressEvents},
		{"off", ProgressOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
			script(newProgress(&b, tc.mode, logger, fakeClock(1300*time.Millisecond), 0))
			got := strings.ReplaceAll(b.String(), "\r", "\\r\n")
			golden := filepath.Join("testdata", "progress", tc.name+".golden")
			if *update {
				_ = os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("progress:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestProgressTicks: the TTY line's elapsed time moves while a stage
// runs, and stops when the heal is done.
func TestProgressTicks(t *testing.T) {
	w := &notifyWriter{ch: make(chan string, 16)}
	p := newProgress(w, ProgressTTY, nil, time.Now, time.Millisecond)
	p.Stage(1, results.StageVerify, 0)
	first := <-w.ch
	second := <-w.ch // a redraw by the ticker, not by a stage
	if !strings.Contains(first, "verify") || !strings.Contains(second, "verify") {
		t.Fatalf("lines %q, %q", first, second)
	}
	p.Done()
	p.Done()
}

// notifyWriter hands every write to a channel, dropping writes past its
// room.
type notifyWriter struct{ ch chan string }

func (w *notifyWriter) Write(b []byte) (int, error) {
	select {
	case w.ch <- string(b):
	default:
	}
	return len(b), nil
}

func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{1300 * time.Millisecond: "1.3s", 59 * time.Second: "59.0s", 63 * time.Second: "1m03s", 61*time.Minute + 2*time.Second: "61m02s"} {
		if got := elapsed(d); got != want {
			t.Errorf("elapsed(%v) = %q, want %q", d, got, want)
		}
	}
}
