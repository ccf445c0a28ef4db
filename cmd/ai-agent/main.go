// Command ai-agent runs one LLM agent session (docs/contracts/ai-agent.md,
// docs/contracts/ai-agent-cli.md): it resolves prompts, frontmatter and the
// layered configuration, runs the session engine and prints the final
// report.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/salve-dev/salve/internal/buildinfo"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/agent/tools/toolschema"
)

// Exit codes (docs/contracts/ai-agent.md §2;
// docs/contracts/ai-agent-cli.md §7).
const (
	exitOK      = 0
	exitFailure = 1
	exitInit    = 3
	exitConfig  = 4
	exitSchema  = 5
)

// version is set at link time with -ldflags "-X main.version=…".
var version = ""

func main() {
	ctx, stop := interruptContext()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptContext returns a context the first SIGINT or SIGTERM cancels
// (a session, or headend mode's graceful shutdown); a second one ends the
// process at once, with the shell's status for the first (128 + its
// number). Both signals go through one channel with room for both, so a
// second signal that comes while the first is being handled is never lost.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first syscall.Signal
		select {
		case sig := <-ch:
			first, _ = sig.(syscall.Signal)
		case <-done:
			return
		}
		cancel()
		select {
		case <-ch:
			os.Exit(128 + int(first))
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel()
		})
	}
}

// exitCode maps an error to its exit code by category, never by message.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, agent.ErrSchema), errors.Is(err, toolschema.ErrSchema):
		return exitSchema
	case errors.Is(err, errInit), errors.Is(err, config.ErrUnknownTool), errors.Is(err, mcp.ErrStart), errors.Is(err, mcp.ErrUnknownServer):
		return exitInit
	case errors.Is(err, config.ErrConfig), errors.Is(err, agent.ErrInvalid):
		return exitConfig
	}
	return exitFailure
}

// run is the whole program; it never panics.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(ctx, defaultDeps(), args, stdin, stdout, stderr)
}

// runWith is run with explicit dependencies.
func runWith(ctx context.Context, d deps, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "AGENT FAILED: internal error: %v\n", r)
			code = exitFailure
		}
	}()
	a, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "ai-agent: %v\n", err)
		return exitCode(err)
	}
	if a.bools["help"] {
		writeHelp(stdout)
		return exitOK
	}
	if a.bools["version"] {
		fmt.Fprintln(stdout, "ai-agent", buildinfo.Version(version))
		return exitOK
	}
	log := newLogger(stderr, a)
	if d.notes == nil {
		d.notes = &notes{}
	}
	d.tel = newTelemetryState(d, a, stderr, log)
	defer d.tel.shutdown()
	for _, w := range a.warnings {
		log.Warn(w)
	}
	resultPath := a.values["result-json"]
	if resultPath == "-" {
		fmt.Fprintln(stderr, "ai-agent: --result-json may not be -")
		return exitConfig
	}
	if err := checkHeadendOnly(a); err != nil {
		fmt.Fprintf(stderr, "ai-agent: %v\n", err)
		return exitCode(err)
	}
	if len(a.headends) > 0 {
		return serveHeadends(ctx, d, a, stdin, stdout, stderr, log)
	}
	if a.has("list-tools") {
		return listTools(ctx, d, a, stdout, stderr, log)
	}
	st, err := prepare(ctx, d, a, stdin, stdout, stderr, log)
	if st != nil {
		defer st.close()
	}
	if err != nil {
		// A start-up error after the flags were parsed is a failed result
		// (docs/contracts/ai-agent-cli.md §6, §8): stderr gets AGENT FAILED,
		// even under --quiet.
		fmt.Fprintf(stderr, "AGENT FAILED: %v\n", err)
		code := exitCode(err)
		if resultPath != "" && !a.bools["dry-run"] {
			res := contract.AIAgentResult{Error: err.Error(), Conversation: []contract.Message{}, Accounting: []contract.AccountingEntry{}}
			if werr := writeResultJSON(resultPath, res); werr != nil {
				fmt.Fprintf(stderr, "ai-agent: %v\n", werr)
			}
		}
		return code
	}
	if a.bools["dry-run"] {
		log.Info("dry run: configuration is valid")
		return exitOK
	}
	return st.execute(ctx, stdout, stderr, resultPath)
}
