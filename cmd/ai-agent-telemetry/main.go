// Command ai-agent-telemetry is ai-agent's telemetry helper
// (docs/ai-agent.md "Telemetry and cost"). ai-agent starts it only when
// telemetry is on, writes its settings and then its events to its
// standard input as JSON lines, and reads one ready line from its
// standard output. It serves the Prometheus metrics and exports the OTLP
// traces, and when its input ends it flushes the spans and exits. Keeping
// the Prometheus client and the OpenTelemetry SDK in this program keeps
// their start-up cost out of every ai-agent run that does not use them.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/salve-dev/salve/internal/agent/telemetry/export"
)

func main() {
	// ai-agent ends the helper by closing its input, after the run's last
	// span; an interrupt sent to the whole process group must not cut
	// the flush short.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	os.Exit(run(context.Background(), os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it never panics.
func run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "ai-agent-telemetry: internal error: %v\n", r)
			code = 1
		}
	}()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := export.Serve(ctx, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "ai-agent-telemetry: %v\n", err)
		return 1
	}
	return 0
}
