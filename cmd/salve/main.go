// Command salve is the orchestrator CLI: heal and its parts (exec, parse,
// fix, tool), the run store and registry (runs, registry, ui, gc), checks
// (validate, bench) and the servers (mcp, serve, worker). main only calls
// run; every subcommand lives in its own file and writes through the
// streams it is given.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/buildinfo"
	"github.com/salve-dev/salve/internal/plain"
)

// Exit codes shared by the subcommands. A subcommand may define more
// (heal's 3 for a missing environment, for example).
const (
	exitOK       = 0
	exitFailure  = 1
	exitBadInput = 2
)

func main() {
	ctx, interrupted, stop := interruptContext(os.Stderr)
	var served bool
	code := runMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, true, &served)
	stop()
	if sig := interrupted(); sig != 0 && !(served && code == exitOK) {
		// The shell's convention: 128 plus the signal's number.
		code = 128 + int(sig)
	}
	os.Exit(code)
}

// interruptContext returns a context that SIGINT or SIGTERM cancels, so
// that every command stops what it is doing (builds, git, LLM requests) and
// cleans up within seconds. The first signal is reported on stderr and
// cancels the context; a second one, or stopGrace without the command
// ending, makes salve exit at once. interrupted reports the first signal
// received, or 0.
func interruptContext(stderr io.Writer) (ctx context.Context, interrupted func() syscall.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		var first syscall.Signal
		select {
		case sig := <-ch:
			first, _ = sig.(syscall.Signal)
		case <-done:
			return
		}
		got.Store(int32(first))
		fmt.Fprintf(stderr, "salve: interrupted by %s; stopping and cleaning up (send it again to stop at once)\n", signalName(first))
		cancel()
		// Every blocking step honours the context; should one not (a
		// read of a terminal, say), salve still ends.
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case sig := <-ch:
			s, _ := sig.(syscall.Signal)
			fmt.Fprintf(stderr, "salve: %s again; stopping now\n", signalName(s))
			os.Exit(128 + int(first))
		case <-grace.C:
			fmt.Fprintf(stderr, "salve: still not stopped %s after %s; exiting\n", stopGrace, signalName(first))
			os.Exit(128 + int(first))
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() syscall.Signal { return syscall.Signal(got.Load()) }, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel()
		})
	}
}

// stopGrace is how long salve may take to stop and clean up after SIGINT or
// SIGTERM before it exits regardless.
const stopGrace = 30 * time.Second

// streams are the standard streams and environment a command uses, so that
// tests can drive commands with buffers.
type streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment, secrets included (from memory once
	// they have been taken out of the process environment).
	Getenv func(string) string
	// Log holds the root's --quiet and --log-* flags.
	Log logOptions

	// scrub, set by main, makes the commands take the secrets out of the
	// process environment before they start anything (see secrets).
	scrub   bool
	secrets *secrets
	// server is set by commands that serve until a signal stops them.
	server bool
}

// logger is the stderr logger of the --log-* flags.
func (s *streams) logger() *slog.Logger { return s.Log.logger(s.Stderr) }

// exitError carries a chosen exit code out of a cobra RunE. A nil Err means
// the command already said what it had to say.
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *exitError) Unwrap() error { return e.Err }

// exitWith returns an error that makes run exit with code, printing err
// (when non-nil) on stderr.
func exitWith(code int, err error) error { return &exitError{Code: code, Err: err} }

// runStatus runs opts through run, or through test when a test gave one,
// and turns the exit status into the command's error.
func runStatus[T any](run, test func(T) int, opts T) error {
	if test != nil {
		run = test
	}
	if code := run(opts); code != exitOK {
		return exitWith(code, nil)
	}
	return nil
}

// run executes the salve command line args and returns the exit status.
// It leaves the process environment alone; main's runMain also takes the
// secrets out of it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runMain(ctx, args, stdin, stdout, stderr, false, nil)
}

// runMain runs salve. When served is not nil, it reports whether the
// command was a server (salve mcp, ui, serve, worker), for which SIGINT and
// SIGTERM are the normal way to stop: a clean stop then exits 0, not
// 128+signal.
func runMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, scrub bool, served *bool) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "salve: internal error: %v\n", r)
			code = exitFailure
		}
	}()
	s := &streams{Stdin: stdin, Stdout: stdout, Stderr: stderr, scrub: scrub}
	if served != nil {
		defer func() { *served = s.server }()
	}
	s.Getenv = func(k string) string { return s.secrets.getenv(k) }
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "salve: %s\n", plain.Message(ee.Err))
		}
		return ee.Code
	}
	// Cobra's own errors: unknown command, bad flag, wrong arguments.
	fmt.Fprintf(stderr, "salve: %v\n", err)
	return exitBadInput
}

func newRootCmd(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "salve",
		Short: "Fix failing builds safely, and run LLM agents with hard guarantees",
		Long: `salve fixes failing builds automatically and safely: see "salve heal --help".

Exit status: 0 done, 1 a failure, 2 bad input, 130 or 143 interrupted by
SIGINT or SIGTERM.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       buildinfo.Version(version),
	}
	// --version prints "salve VERSION", as ai-agent and git_agent print
	// theirs. Declaring the flag here keeps cobra from adding its -v
	// shorthand, which the other two binaries do not have.
	root.SetVersionTemplate("salve {{.Version}}\n")
	root.Flags().Bool("version", false, "print the version and exit")
	root.SetFlagErrorFunc(suggestFlag)
	s.Log.flags(root, s.Getenv)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := s.Log.check(); err != nil {
			return exitWith(exitBadInput, err)
		}
		return hideSecrets(cmd, s)
	}
	root.SetIn(s.Stdin)
	root.SetOut(s.Stdout)
	root.SetErr(s.Stderr)
	root.AddCommand(
		newHealCmd(s),
		newExecCmd(s),
		newParseCmd(s),
		newFixCmd(s),
		newToolCmd(s),
		newRunsCmd(s),
		newRegistryCmd(s),
		newValidateCmd(s),
		newUICmd(s),
		newBenchCmd(s),
		newGCCmd(s),
		newMCPCmd(s),
		newServeCmd(s),
		newWorkerCmd(s),
	)
	refuseUnknownSubcommands(root)
	return root
}

// refuseUnknownSubcommands makes every command group (a command with
// subcommands and no action of its own) fail on an unknown subcommand.
// Cobra would otherwise print the group's help and exit 0, so a typo in a
// script would pass silently.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c == c.Root() || !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return exitWith(exitBadInput, fmt.Errorf("%s: a subcommand is required", cmd.CommandPath()))
		}
		return exitWith(exitBadInput, fmt.Errorf("%s: unknown subcommand %q (see %s --help)", cmd.CommandPath(), args[0], cmd.CommandPath()))
	}
}

// signalName names the signals salve catches as a user would write them.
func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// version is set at link time with -ldflags "-X main.version=…".
var version = ""
