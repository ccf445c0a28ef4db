package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/internal/heal/logparse"
	"github.com/salve-dev/salve/internal/safefile"
)

// parseOptions are the inputs of "salve parse", filled by newParseCmd.
type parseOptions struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Logger receives progress records; nil discards them.
	Logger *slog.Logger

	Log       string // a file, or "-" for stdin
	Root      string // the workspace root as the log sees it
	Workspace string // the checkout on this host
	Text      bool   // one line per report instead of JSON
	Format    string // the output format (report.Formats)
	Score     string // a corpus directory to score instead of a log
	List      bool   // print the parser table
}

// newParseCmd builds "salve parse". runF replaces parseRun in tests.
func newParseCmd(s *streams) *cobra.Command {
	return newParseCmdWith(s, nil)
}

func newParseCmdWith(s *streams, runF func(*parseOptions) int) *cobra.Command {
	opts := &parseOptions{Stdin: s.Stdin, Stdout: s.Stdout, Stderr: s.Stderr}
	cmd := &cobra.Command{
		Use:   "parse [--root ROOT] [--workspace DIR] [--text] LOG|-",
		Short: "Find the located errors in a build log (deterministic, no LLM)",
		Long: `parse reads a combined build log (a file, or - for stdin) and prints the
errors it locates as a JSON array of BugReport ([] when there are none), or
one line per report with --text. --format writes the reports for a CI
platform instead: sarif (SARIF 2.1.0, for GitHub code scanning), github
(workflow commands that annotate the lines), gitlab (a Code Quality
report), rdjson or rdjsonl (reviewdog's diagnostic format), json or text.

--root is the workspace root as the log sees it (for example /workspace/app);
--workspace is the checkout on this host, used to match paths by suffix when
the log's root differs. When --root exists on this host and --workspace is not
given, --root is indexed as the workspace too. --score DIR scores the parser on a fixture corpus,
and --list prints the table of formats it reads.

The exit status is 0 when the log was parsed, whatever it held, 1 when the
output could not be written, and 2 on bad input.`,
		Example: `  salve parse build.log
  go test ./... 2>&1 | salve parse --text -
  salve parse --format sarif build.log > salve.sarif
  make 2>&1 | salve parse --format github -
  salve parse --root /home/runner/work/app/app --workspace . ci.log
  salve parse --score internal/heal/logparse/testdata/corpus`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Score != "" || opts.List {
				return cobra.MaximumNArgs(0)(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Log = args[0]
			}
			opts.Logger = s.logger()
			if err := opts.checkFormat(cmd.Flags().Changed("text")); err != nil {
				return exitWith(exitBadInput, err)
			}
			return runStatus(parseRun, runF, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Root, "root", "", "workspace root as the log sees it (container path)")
	f.StringVar(&opts.Workspace, "workspace", "", "the checkout on this host, to resolve paths by suffix")
	f.BoolVar(&opts.Text, "text", false, "print one line per report instead of JSON (same as --format text)")
	f.StringVar(&opts.Format, "format", "json", "output format: "+formatNames())
	f.StringVar(&opts.Score, "score", "", "score the parser on a fixture corpus directory")
	f.BoolVar(&opts.List, "list", false, "print the table of formats the parser reads")
	return cmd
}

// parseRun does the work of "salve parse" and returns the exit status.
func parseRun(opts *parseOptions) int {
	switch {
	case opts.List:
		return parseList(opts)
	case opts.Score != "":
		return parseScore(opts)
	}
	if opts.Workspace != "" {
		if st, err := os.Stat(opts.Workspace); err != nil || !st.IsDir() {
			fmt.Fprintf(opts.Stderr, "salve parse: --workspace %s: not a directory\n", opts.Workspace)
			return exitBadInput
		}
	}
	// A log is a regular file, or stdin; either way at most
	// safefile.MaxLog bytes are read, so /dev/zero or an endless pipe ends
	// with an error rather than never.
	in := safefile.LimitReader(opts.Stdin, safefile.MaxLog)
	if opts.Log == "-" && opts.Logger != nil {
		opts.Logger.Debug("reading the build log from standard input")
	}
	if opts.Log != "-" {
		f, err := safefile.Open(opts.Log, safefile.Options{})
		if err != nil {
			fmt.Fprintf(opts.Stderr, "salve parse: %v (give - to read a pipe on stdin)\n", err)
			return exitBadInput
		}
		defer f.Close()
		in = safefile.LimitReader(f, safefile.MaxLog)
	}
	popts := logparse.Options{Root: opts.Root, Workspace: opts.Workspace}
	if popts.Workspace == "" && opts.Root != "" {
		// A root that exists here is the checkout itself: index it, so that
		// paths written from a subdirectory are matched by suffix.
		if st, err := os.Stat(opts.Root); err == nil && st.IsDir() {
			popts.Workspace = opts.Root
		}
	}
	reports, err := logparse.Parse(in, popts)
	if err != nil {
		fmt.Fprintf(opts.Stderr, "salve parse: %v\n", err)
		return exitBadInput
	}
	if err := writeReports(opts.Stdout, opts.Stderr, opts.Format, reports); err != nil {
		fmt.Fprintf(opts.Stderr, "salve parse: writing output: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func parseScore(opts *parseOptions) int {
	card, err := logparse.ScoreCorpus(opts.Score)
	if err != nil {
		fmt.Fprintf(opts.Stderr, "salve parse: %v\n", err)
		if errors.Is(err, logparse.ErrCorpus) {
			return exitBadInput
		}
		return exitFailure
	}
	if opts.Text {
		fmt.Fprint(opts.Stdout, card.Text())
		return exitOK
	}
	enc := json.NewEncoder(opts.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(card); err != nil {
		return exitFailure
	}
	return exitOK
}

func parseList(opts *parseOptions) int {
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tNAME\tTOOL\tREADS")
	for _, r := range logparse.Rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Family, r.Name, r.Tool, r.Doc)
	}
	if err := tw.Flush(); err != nil {
		return exitFailure
	}
	return exitOK
}
