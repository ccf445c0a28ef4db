package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/store"
)

// runsOptions are the inputs of "salve runs …", filled by newRunsCmd.
type runsOptions struct {
	Ctx            context.Context
	Stdout, Stderr io.Writer
	Getenv         func(string) string

	Store    string
	JSON     bool
	Kind     string
	Status   string
	Limit    int
	RunRef   string
	Artifact string
	// Server, when set, is a `salve serve` URL to read runs from.
	Server string
	remote *remote
}

// newRunsCmd builds "salve runs" and its list, show and patch commands.
func newRunsCmd(s *streams) *cobra.Command {
	opts := &runsOptions{Stdout: s.Stdout, Stderr: s.Stderr, Getenv: s.Getenv}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Read the run store: list runs, show one, print its patch",
		Long: `runs reads the run store that tool runs, executions and heals write to
(--store, else $SALVE_STORE, else $XDG_STATE_HOME/salve/runs.db or
~/.local/state/salve/runs.db). RUN is a run id, a unique prefix of one, or
"latest".

--server URL (or $SALVE_SERVER) reads "list" and "show" from a salve serve
server's run store instead, with the bearer token of $SALVE_SERVER_TOKEN.`,
	}
	cmd.PersistentFlags().StringVar(&opts.Store, "store", "", "run store file")
	cmd.PersistentFlags().StringVar(&opts.Server, "server", "", "read runs from this salve serve URL (default $SALVE_SERVER)")
	wrap := func(f func(*runsOptions) int) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			opts.Ctx = c.Context()
			if len(args) > 0 {
				opts.RunRef = args[0]
			}
			if opts.Server == "" {
				opts.Server = opts.Getenv("SALVE_SERVER")
			}
			if opts.Server != "" {
				if opts.Store != "" {
					return exitWith(exitBadInput, fmt.Errorf("runs: --server and --store name two sources; give one"))
				}
				if c.Name() == "patch" || c.Name() == "artifact" {
					return exitWith(exitBadInput, fmt.Errorf("runs %s reads a local run store only; run it where the store is", c.Name()))
				}
				r, err := newRemote(opts.Server, opts.Getenv)
				if err != nil {
					return exitWith(exitBadInput, err)
				}
				opts.remote = r
			}
			if code := f(opts); code != exitOK {
				return exitWith(code, nil)
			}
			return nil
		}
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List runs, newest first",
		Example: "  salve runs list\n  salve runs list --kind tool --status scope_violation --json",
		Args:    cobra.NoArgs,
		RunE:    wrap(runsList),
	}
	list.Flags().StringVar(&opts.Kind, "kind", "", "only runs of this kind (tool, exec, heal)")
	list.Flags().StringVar(&opts.Status, "status", "", "only runs with this status")
	list.Flags().IntVar(&opts.Limit, "limit", store.DefaultListLimit, "at most this many runs (0: all)")
	list.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	show := &cobra.Command{
		Use:     "show RUN",
		Short:   "Show everything recorded under a run",
		Example: "  salve runs show latest\n  salve runs show 3f2a --json",
		Args:    cobra.ExactArgs(1),
		RunE:    wrap(runsShow),
	}
	show.Flags().BoolVar(&opts.JSON, "json", false, "print the whole record as JSON")
	patch := &cobra.Command{
		Use:   "patch RUN",
		Short: "Print the run's kept changes as one patch that git apply accepts",
		Long: `patch prints the diffs of the run's patches that were kept (in scope, not
reverted), and those of its child runs, as one patch for git apply. It exits 1
when the run changed nothing.`,
		Example: "  salve runs patch latest | git apply --check",
		Args:    cobra.ExactArgs(1),
		RunE:    wrap(runsPatch),
	}
	artifact := &cobra.Command{
		Use:     "artifact RUN NAME",
		Short:   "Print the bytes of an artifact recorded under a run (build.log, results.json…)",
		Example: "  salve runs artifact latest results.json",
		Args:    cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Artifact = args[1]
			return wrap(runsArtifact)(c, args)
		},
	}
	cmd.AddCommand(list, show, patch, artifact)
	return cmd
}

// withStore opens the store read-only, runs f, and closes it. Reading
// never creates, migrates or rewrites the store; one that does not exist
// yet is bad input (exit 2), with a message that says so.
func (o *runsOptions) withStore(f func(*store.Store) int) int {
	path := o.Store
	if path == "" {
		p, err := store.DefaultPath(o.Getenv)
		if err != nil {
			fmt.Fprintf(o.Stderr, "salve: runs: %v\n", err)
			return exitFailure
		}
		path = p
	}
	st, err := store.OpenReadOnly(o.Ctx, path)
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: runs: %v\n", err)
		if errors.Is(err, store.ErrNoStore) {
			return exitBadInput
		}
		return exitFailure
	}
	defer st.Close()
	return f(st)
}

// resolve turns o.RunRef into a run id; a missing or ambiguous run is bad
// input.
func (o *runsOptions) resolve(st *store.Store) (string, int) {
	id, err := st.ResolveRunID(o.Ctx, o.RunRef)
	if err != nil {
		fmt.Fprintf(o.Stderr, "salve: runs: %v\n", err)
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous) {
			return "", exitBadInput
		}
		return "", exitFailure
	}
	return id, exitOK
}

func runsList(o *runsOptions) int {
	if o.Limit < 0 {
		fmt.Fprintf(o.Stderr, "salve: runs list: --limit must be 0 (all) or more, got %d\n", o.Limit)
		return exitBadInput
	}
	if o.remote != nil {
		return runsListRemote(o, o.remote)
	}
	return o.withStore(func(st *store.Store) int {
		limit := o.Limit
		if limit == 0 {
			limit = -1
		}
		runs, err := st.ListRuns(o.Ctx, store.RunFilter{Kind: o.Kind, Status: o.Status, Limit: limit})
		if err != nil {
			fmt.Fprintf(o.Stderr, "salve: runs list: %v\n", err)
			return exitFailure
		}
		if o.JSON {
			return printJSON(o.Stdout, o.Stderr, nonNilRuns(runs))
		}
		return writeRunsTable(o, runs)
	})
}

// writeRunsTable prints runs as a table, newest first.
func writeRunsTable(o *runsOptions, runs []store.Run) int {
	tw := tabwriter.NewWriter(o.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tKIND\tSTATUS\tSTARTED\tDURATION\tTITLE")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.RunID, r.Kind, r.Status, r.StartedAt, duration(r), r.Title)
	}
	if err := tw.Flush(); err != nil {
		return exitFailure
	}
	return exitOK
}

func nonNilRuns(r []store.Run) []store.Run {
	if r == nil {
		return []store.Run{}
	}
	return r
}

// duration renders how long a finished run took.
func duration(r store.Run) string {
	start, err1 := time.Parse(contract.TimeLayout, r.StartedAt)
	end, err2 := time.Parse(contract.TimeLayout, r.CompletedAt)
	if err1 != nil || err2 != nil {
		return "-"
	}
	return end.Sub(start).Round(time.Millisecond).String()
}

func printJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "salve: %v\n", err)
		return exitFailure
	}
	return exitOK
}

func runsShow(o *runsOptions) int {
	if o.remote != nil {
		return runsShowRemote(o, o.remote)
	}
	return o.withStore(func(st *store.Store) int {
		id, code := o.resolve(st)
		if code != exitOK {
			return code
		}
		v, err := st.View(o.Ctx, id)
		if err != nil {
			fmt.Fprintf(o.Stderr, "salve: runs show: %v\n", err)
			return exitFailure
		}
		if o.JSON {
			return printJSON(o.Stdout, o.Stderr, v)
		}
		if err := writeView(o.Stdout, v); err != nil {
			return exitFailure
		}
		return exitOK
	})
}

// writeView prints a run for people: the header, then each part it has.
func writeView(w io.Writer, v store.RunView) error {
	ew := &errWriter{w: w}
	r := v.Run
	ew.printf("run %s\n  kind:      %s\n  status:    %s\n  started:   %s\n", r.RunID, r.Kind, r.Status, r.StartedAt)
	if r.CompletedAt != "" {
		ew.printf("  completed: %s (%s)\n", r.CompletedAt, duration(r))
	}
	if r.ParentID != "" {
		ew.printf("  parent:    %s\n", r.ParentID)
	}
	if r.Title != "" {
		ew.printf("  title:     %s\n", r.Title)
	}
	if r.Kind == store.KindHeal {
		writeHealSummary(ew, r)
	} else if s := string(r.Summary); s != "" && s != "{}" {
		ew.printf("  summary:   %s\n", s)
	}
	section(ew, "stages", len(v.Stages), func(i int) string {
		s := v.Stages[i]
		return fmt.Sprintf("%-12s %-8s %8.3fs  %s", s.Name, s.Status, s.DurationSeconds, s.StartedAt)
	})
	section(ew, "tool runs", len(v.ToolRuns), func(i int) string {
		t := v.ToolRuns[i]
		return fmt.Sprintf("%s exit_code %d timed_out %v %.3fs, stdout %d bytes, stderr %d bytes: %s",
			t.Result.ToolID, t.Result.ExitCode, t.Result.TimedOut, t.Result.DurationSeconds,
			len(t.Result.Stdout), len(t.Result.Stderr), strings.Join(t.Request.Cmd, " "))
	})
	section(ew, "patches", len(v.Patches), func(i int) string {
		p := v.Patches[i]
		state := "kept"
		if !p.InScope {
			state = "OUT OF SCOPE"
			if p.Reverted {
				state += ", reverted"
			}
		}
		return fmt.Sprintf("%-6s %s (%s)", p.Operation, p.FilePath, state)
	})
	section(ew, "events", len(v.Events), func(i int) string {
		e := v.Events[i]
		return fmt.Sprintf("%s %-5s %s", e.TS, e.Level, e.Message)
	})
	section(ew, "artifacts", len(v.Artifacts), func(i int) string {
		a := v.Artifacts[i]
		where := "stored"
		if a.Path != "" {
			where = a.Path
		}
		return fmt.Sprintf("%s (%s, %d bytes, %s)", a.Name, a.MediaType, a.Size, where)
	})
	section(ew, "accounting", len(v.Accounting), func(i int) string {
		a := v.Accounting[i]
		return fmt.Sprintf("%s %s %s/%s %dms", a.Type, a.Status, a.Provider, a.Model, a.Latency)
	})
	section(ew, "child runs", len(v.Children), func(i int) string {
		c := v.Children[i]
		return fmt.Sprintf("%s %s %s %s", c.RunID, c.Kind, c.Status, c.Title)
	})
	return ew.err
}

// summaryRows is how many rows of a section the short view shows; --json
// prints the whole record.
const summaryRows = 12

func section(ew *errWriter, title string, n int, line func(int) string) {
	if n == 0 {
		return
	}
	ew.printf("%s:\n", title)
	for i := range min(n, summaryRows) {
		ew.printf("  %s\n", line(i))
	}
	if n > summaryRows {
		ew.printf("  … and %d more (salve runs show RUN --json prints them all)\n", n-summaryRows)
	}
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func runsPatch(o *runsOptions) int {
	return o.withStore(func(st *store.Store) int {
		id, code := o.resolve(st)
		if code != exitOK {
			return code
		}
		patch, err := runPatch(o.Ctx, st, id)
		if err != nil {
			fmt.Fprintf(o.Stderr, "salve: runs patch: %v\n", err)
			return exitFailure
		}
		if patch == "" {
			fmt.Fprintf(o.Stderr, "salve: runs patch: run %s kept no changes\n", id)
			return exitFailure
		}
		if _, err := io.WriteString(o.Stdout, patch); err != nil {
			return exitFailure
		}
		return exitOK
	})
}

// runPatch joins the diffs of the kept patches of a run and of its
// children, oldest first.
func runPatch(ctx context.Context, st *store.Store, id string) (string, error) {
	ids := []string{id}
	children, err := st.ListRuns(ctx, store.RunFilter{ParentID: id, Limit: -1})
	if err != nil {
		return "", err
	}
	for i := len(children) - 1; i >= 0; i-- {
		ids = append(ids, children[i].RunID)
	}
	var b strings.Builder
	for _, rid := range ids {
		patches, err := st.Patches(ctx, rid)
		if err != nil {
			return "", err
		}
		for _, p := range patches {
			if p.InScope && !p.Reverted && p.Diff != "" {
				b.WriteString(p.Diff)
			}
		}
	}
	return b.String(), nil
}

func runsArtifact(o *runsOptions) int {
	return o.withStore(func(st *store.Store) int {
		id, code := o.resolve(st)
		if code != exitOK {
			return code
		}
		_, data, err := st.ArtifactData(o.Ctx, id, o.Artifact)
		if errors.Is(err, store.ErrNotFound) {
			fmt.Fprintf(o.Stderr, "salve: runs artifact: %v\n", err)
			return exitBadInput
		}
		if err != nil && data == nil {
			fmt.Fprintf(o.Stderr, "salve: runs artifact: %v\n", err)
			return exitFailure
		}
		if _, werr := o.Stdout.Write(data); werr != nil {
			return exitFailure
		}
		if err != nil {
			// The referenced file changed since it was recorded.
			fmt.Fprintf(o.Stderr, "salve: runs artifact: %v\n", err)
			return exitFailure
		}
		return exitOK
	})
}

// writeHealSummary prints a heal run's results (stored as its summary) for
// people: the outcome and why, the branch and commits, the environment
// failure if any, and the fix rates per error_type. The whole document is
// in the results.json artifact and in --json.
func writeHealSummary(ew *errWriter, r store.Run) {
	var res results.Results
	if len(r.Summary) == 0 || json.Unmarshal(r.Summary, &res) != nil || res.Outcome == "" {
		if s := string(r.Summary); s != "" && s != "{}" {
			ew.printf("  summary:   %s\n", s)
		}
		return
	}
	ew.printf("  outcome:   %s: %s\n  branch:    %s, %d commit(s), %d iteration(s)\n", res.Outcome, res.Reason, res.Branch, len(res.Commits), res.Iterations)
	if env := res.Environment; env != nil {
		ew.printf("  environment: %s (%s): %s\n  next:      %s\n", env.Kind, env.Ecosystem, env.Evidence, env.Hint)
	}
	if len(res.ByType) == 0 {
		return
	}
	types := make([]string, 0, len(res.ByType))
	for t := range res.ByType {
		types = append(types, t)
	}
	sort.Strings(types)
	ew.printf("fix rates by error type:\n  %-14s %6s %6s %9s %5s\n", "type", "found", "fixed", "rejected", "left")
	for _, t := range types {
		n := res.ByType[t]
		ew.printf("  %-14s %6d %6d %9d %5d\n", t, n.Found, n.Fixed, n.Rejected, n.Left)
	}
}
