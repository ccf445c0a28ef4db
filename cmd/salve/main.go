// Command salve is the orchestrator CLI: heal, exec, parse, fix, tool run,
// runs, registry and validate. main only calls run; every subcommand lives in
// its own file and writes through the streams it is given.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes shared by the subcommands. A subcommand may define more
// (heal's 3 for a missing environment, for example).
const (
	exitOK       = 0
	exitFailure  = 1
	exitBadInput = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// streams are the standard streams and environment a command uses, so that
// tests can drive commands with buffers.
type streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

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

// run executes the salve command line args and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "salve: internal error: %v\n", r)
			code = exitFailure
		}
	}()
	s := &streams{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(stderr, "salve: %v\n", ee.Err)
		}
		return ee.Code
	}
	// Cobra's own errors: unknown command, bad flag, wrong arguments.
	fmt.Fprintf(stderr, "salve: %v\n", err)
	return exitBadInput
}

func newRootCmd(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "salve",
		Short:         "Fix failing builds safely, and run LLM agents with hard guarantees",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
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

// version is set at link time with -ldflags "-X main.version=…".
var version = "dev"

// notYet is the body of a subcommand that has not landed yet. It fails
// loudly rather than pretending to work.
func notYet(name string) *cobra.Command {
	return &cobra.Command{
		Use:                name,
		Short:              "(not implemented yet)",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return exitWith(exitFailure, fmt.Errorf("%s: not implemented yet", name))
		},
	}
}
