package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/aidercall"
)

// validateOptions are the inputs of "salve validate", filled by newValidateCmd.
type validateOptions struct {
	Ctx            context.Context
	Stdout, Stderr io.Writer

	Dir      string
	Patterns []string
}

// newValidateCmd builds "salve validate".
func newValidateCmd(s *streams) *cobra.Command {
	opts := &validateOptions{Stdout: s.Stdout, Stderr: s.Stderr}
	cmd := &cobra.Command{
		Use:   "validate [packages]",
		Short: "Check that aider runs only through the tool adapter (AIDER_CONTRACT_V1 §10)",
		Long: `validate runs the aidercall analyzer over Go packages (go list patterns,
./... by default). It reports aider started directly (exec.Command,
exec.CommandContext, os.StartProcess, a sandbox.Cmd or exec.Cmd whose Path is
"aider") anywhere but the toolrun package, and any contract.ToolRunResultV1
built outside it. Test files are not checked.

It prints one finding per line, "file:line:col: message", and exits 0 when
there are none, 1 when there are, 2 when the packages do not load. The same
analyzer runs under go vet:

  go build -o aidercall ./internal/aidercall/cmd/aidercall
  go vet -vettool=$PWD/aidercall ./...`,
		Example: "  salve validate\n  salve validate ./internal/heal/... ./cmd/...",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Patterns = args
			if code := validateRun(opts); code != exitOK {
				return exitWith(code, nil)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&opts.Dir, "dir", "C", "", "run in this folder (default: the current one)")
	return cmd
}

func validateRun(o *validateOptions) int {
	findings, err := aidercall.Validate(o.Ctx, o.Dir, o.Patterns)
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: %v\n", err)
		return exitBadInput
	}
	for _, f := range findings {
		fmt.Fprintln(o.Stdout, f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(o.Stderr, "salve: validate: %d contract violation(s)\n", len(findings))
		return exitFailure
	}
	return exitOK
}
