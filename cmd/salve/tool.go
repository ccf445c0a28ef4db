package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// newToolCmd builds "salve tool".
func newToolCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tool",
		Short: "Run an external coding tool through the contract adapter (aider)",
	}
	cmd.AddCommand(newToolRunCmd(s, nil), newToolListCmd(s))
	return cmd
}

// newToolListCmd builds "salve tool list": the profile table.
func newToolListCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the tools the adapter can run (the profile table)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(s.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tCOMMAND\tFORCED ENV")
			for _, p := range toolrun.DefaultProfiles() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", p.ToolID, p.Synopsis(), envList(p.ForcedEnv))
			}
			if err := tw.Flush(); err != nil {
				return exitWith(exitFailure, err)
			}
			return nil
		},
	}
}

func envList(env map[string]string) string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// toolRunOptions are the inputs of "salve tool run", filled by newToolRunCmd.
type toolRunOptions struct {
	Ctx            context.Context
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	Tool        string
	Model       string
	MessageFile string
	EditFormat  string
	Read        []string
	Timeout     int
	Pattern     string
	Index       string // PATTERN_INDEX.yaml; empty means the one in Cwd
	Cwd         string
	Files       []string
	Store       string
	ScrubEnv    bool
}

// newToolRunCmd builds "salve tool run". runF replaces toolRun in tests.
func newToolRunCmd(s *streams, runF func(*toolRunOptions) int) *cobra.Command {
	opts := &toolRunOptions{Stdout: s.Stdout, Stderr: s.Stderr, Getenv: s.Getenv}
	cmd := &cobra.Command{
		Use:   "run aider --model M --message-file F [flags] -- FILE...",
		Short: "Run aider on FILEs under the contract: timeout, scope check, audit trail",
		Long: `run builds the aider command of the contract (AIDER_CONTRACT_V1):

  aider --no-auto-commits --yes --no-dirty-commits --no-gitignore
        --model M --message-file F [--edit-format E] [--read R]... FILE...

and runs it in --cwd (default: the current folder) with salve's environment
(or, with --scrub-env, only the safe variables and aider's own), then
AIDER_NO_AUTO_COMMITS=1; a timeout kills its whole process group, and what
it leaves running is killed when it exits; its output is capped to head and
tail, with known secret values masked. Files changed outside FILEs are put
back as they were. Any change to the git directory (hooks, config, info, the
.git file), a link out of the work tree, a file planted in node_modules or a
virtualenv, or aider's own config is put back too, and fails the run with
exit_code -5. With --pattern, the pattern's guardrails from PATTERN_INDEX.yaml
are enforced first.

It prints the ToolRunResultV1 with the run_id as JSON on stdout. Every run is
recorded in the run store (--store, else $SALVE_STORE, else the state folder);
read it back with "salve runs show RUN".

Exit status: 0 when the tool succeeded (exit_code 0), 1 otherwise (the
exit_code says why: -1 timeout, -2 not found, -3 execution error, -4
rejected, -5 unsafe changes reverted), 2 on bad usage.`,
		Example: `  salve tool run aider --model gpt-4 --message-file fix.txt -- src/app.py
  salve tool run aider --model sonnet --message-file p.txt --edit-format diff \
      --read CONVENTIONS.md --timeout 600 --pattern aider_refactor -- src/a.py src/b.py`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Tool = args[0]
			opts.Files = args[1:]
			if opts.Model == "" || opts.MessageFile == "" {
				return exitWith(exitBadInput, errors.New("tool run: --model and --message-file are required"))
			}
			return runStatus(toolRun, runF, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Model, "model", "", "the LLM aider uses (required)")
	f.StringVar(&opts.MessageFile, "message-file", "", "file holding the instructions (required)")
	f.StringVar(&opts.EditFormat, "edit-format", "", "aider's edit format (diff, whole…)")
	f.StringArrayVar(&opts.Read, "read", nil, "read-only context file (repeatable)")
	f.IntVar(&opts.Timeout, "timeout", contract.DefaultToolTimeoutSeconds, "timeout in seconds")
	f.StringVar(&opts.Pattern, "pattern", "", "pattern id whose guardrails apply")
	f.StringVar(&opts.Index, "index", "", "pattern index (default: PATTERN_INDEX.yaml in --cwd)")
	f.StringVar(&opts.Cwd, "cwd", "", "work tree root (default: the current folder)")
	f.StringVar(&opts.Store, "store", "", "run store file (default: $SALVE_STORE or the state folder)")
	f.BoolVar(&opts.ScrubEnv, "scrub-env", false, "give the tool only the safe variables and its own (AIDER_*, provider keys) instead of the whole environment")
	return cmd
}

// toolRun runs the tool and prints its result. It returns the exit status.
func toolRun(o *toolRunOptions) int {
	if o.Tool != toolrun.ToolAider {
		fmt.Fprintf(o.Stderr, "salve: tool run: unknown tool %q (known: %s)\n", o.Tool, toolrun.ToolAider)
		return exitBadInput
	}
	if o.Timeout <= 0 {
		fmt.Fprintln(o.Stderr, "salve: tool run: --timeout must be positive")
		return exitBadInput
	}
	cwd, err := filepath.Abs(orDot(o.Cwd))
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: tool run: %v\n", err)
		return exitBadInput
	}
	prompt, err := filepath.Abs(o.MessageFile)
	if err == nil {
		_, err = os.Stat(prompt)
	}
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: tool run: message file: %v\n", err)
		return exitBadInput
	}
	var pat *pattern.Pattern
	if o.Pattern != "" {
		if pat, err = loadPattern(o.Index, cwd, o.Pattern); err != nil {
			fmt.Fprintf(o.Stderr, "salve: tool run: %v\n", err)
			return exitBadInput
		}
	}
	req, err := toolrun.BuildAiderToolRequest(toolrun.AiderOptions{
		Model: o.Model, PromptFile: prompt, EditFormat: o.EditFormat, Read: o.Read, FileScope: o.Files,
		Workspace: contract.GitWorkspaceRefV1{RootPath: cwd}, TimeoutSeconds: o.Timeout,
		Context: map[string]any{"pattern_id": o.Pattern, "source": "salve tool run"},
	})
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: tool run: %v\n", err)
		return exitBadInput
	}
	st, err := openRunStore(o.Store, o.Getenv)
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: tool run: %v\n", err)
		return exitFailure
	}
	defer st.Close()
	a := &toolrun.Adapter{Store: st, Logger: slog.New(slog.NewTextHandler(o.Stderr, nil))}
	// A signal to salve cancels o.Ctx: the adapter kills the tool's group,
	// then still reverts out-of-scope changes and records the run.
	out := a.RunAider(o.Ctx, req, toolrun.RunOptions{Pattern: pat, ScrubEnv: o.ScrubEnv})
	if err := printToolResult(o.Stdout, out); err != nil {
		fmt.Fprintf(o.Stderr, "salve: tool run: %v\n", err)
		return exitFailure
	}
	switch {
	case out.Result.ExitCode == toolrun.ExitUnsafeChange:
		fmt.Fprintf(o.Stderr, "salve: tool run: the tool made unsafe changes (git hooks or config, links out of the tree, dependencies, FIFOs or hard links); see the ERROR events of run %s: %v\n", out.RunID, out.Record.ScopeViolations)
	case out.Record.Status == contract.RunScopeViolated:
		fmt.Fprintf(o.Stderr, "salve: tool run: changes outside the file scope were reverted: %v\n", out.Record.ScopeViolations)
	}
	if !out.Result.Succeeded() {
		return exitFailure
	}
	return exitOK
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// loadPattern loads the pattern index (index, or PATTERN_INDEX.yaml in
// root) and returns the enabled pattern id.
func loadPattern(index, root, id string) (*pattern.Pattern, error) {
	if index == "" {
		index = filepath.Join(root, pattern.DefaultIndexFile)
	}
	ix, err := pattern.Load(index, toolrun.ExecutorNames(toolrun.DefaultExecutors()))
	if err != nil {
		return nil, err
	}
	return ix.Get(id)
}

// printToolResult prints the result's fields and the run id as one JSON
// object.
func printToolResult(w io.Writer, out toolrun.Outcome) error {
	b, err := json.Marshal(out.Result)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	m["run_id"] = out.RunID
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// openRunStore opens the run store at path, or at store.DefaultPath.
func openRunStore(path string, getenv func(string) string) (*store.Store, error) {
	if path == "" {
		p, err := store.DefaultPath(getenv)
		if err != nil {
			return nil, err
		}
		path = p
	}
	return store.Open(path)
}
