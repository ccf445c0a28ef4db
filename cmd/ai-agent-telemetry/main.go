// Command ai-agent-telemetry is ai-agent's telemetry helper
// (docs/ai-agent.md "Telemetry and cost"). ai-agent starts it only when
// telemetry is on, writes its settings and then its events to its
// standard input as JSON lines, and reads one ready line from its
// standard output. It serves the Prometheus metrics, pushes them and
// exports the traces over OTLP, and when its input ends it pushes the last
// metrics, flushes the spans and exits. Keeping
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
	"github.com/salve-dev/salve/internal/buildinfo"
)

// version is set at link time with -ldflags "-X main.version=…".
var version = ""

// usage is what --help prints: the helper takes no arguments.
const usage = `usage: ai-agent-telemetry [--version]

ai-agent starts this helper when its telemetry is on and talks to it over
its standard input and output; it is not meant to be run by hand. See
ai-agent's documentation, "Telemetry and cost".
`

func main() {
	// ai-agent ends the helper by closing its input, after the run's last
	// span; an interrupt sent to the whole process group must not cut
	// the flush short.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it never panics.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "ai-agent-telemetry: internal error: %v\n", r)
			code = 1
		}
	}()
	switch {
	case len(args) == 1 && (args[0] == "--version" || args[0] == "-V"):
		fmt.Fprintln(stdout, "ai-agent-telemetry", buildinfo.Version(version))
		return 0
	case len(args) == 1 && (args[0] == "--help" || args[0] == "-h"):
		fmt.Fprint(stdout, usage)
		return 0
	case len(args) > 0:
		fmt.Fprintf(stderr, "ai-agent-telemetry: unexpected arguments %q\n%s", args, usage)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := export.Serve(ctx, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "ai-agent-telemetry: %v\n", err)
		return 1
	}
	return 0
}
