package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/repoconfig"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/safefile"
)

// fixOptions are the flags of "salve fix".
type fixOptions struct {
	heal    healOptions
	Bug     string
	LogFile string
}

// fixOutput is what "salve fix" prints for one file's reports.
type fixOutput struct {
	File     string               `json:"file"`
	Request  contract.FixRequest  `json:"request"`
	Results  []fixAttempt         `json:"attempts"`
	Accepted *contract.FixResult  `json:"accepted"`
	Line     string               `json:"line"`
	Reports  []contract.BugReport `json:"-"`
}

type fixAttempt struct {
	Fixer  string              `json:"fixer"`
	Result *contract.FixResult `json:"result,omitempty"`
	Error  string              `json:"error,omitempty"`
	Gate   *heal.GateDecision  `json:"gate,omitempty"`
}

// newFixCmd builds "salve fix": run the Fix Agent once, for debugging.
func newFixCmd(s *streams) *cobra.Command {
	o := &fixOptions{}
	cmd := &cobra.Command{
		Use:   "fix",
		Short: "Run the Fix Agent once on bug reports and print its FixResult (nothing is written)",
		Long: `Run the Fix Agent's tiers once on bug reports and print, per file, the
FixRequest, each tier's FixResult with the fix gate's decision, and the
accepted fix with its formatted line. No file is written and nothing is
committed.

The reports come from --bug (a BugReport JSON object or array) or from --log
(a build log, parsed like salve parse does).`,
		Example: `  salve fix --bug '{"file_path":"main.go","line_number":4,"error_type":"IMPORT","message":"\"os\" imported and not used"}'
  salve fix --log build.log --fixers rules,llm --models test/fix-logic --config .ai-agent.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return fixRun(c.Context(), s, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Bug, "bug", "", "a BugReport JSON object or array")
	f.StringVar(&o.LogFile, "log", "", "a build log to parse for bug reports")
	f.StringVar(&o.heal.Workspace, "workspace", ".", "the repository the reports are relative to")
	f.StringVar(&o.heal.Fixers, "fixers", "", tiers.FlagUsage())
	f.Float64Var(&o.heal.MinConfidence, "min-confidence", heal.DefaultMinConfidence, "the fix gate's confidence threshold")
	f.StringSliceVar(&o.heal.Models, "models", nil, "llm targets in fallback order, provider/model,...")
	f.StringVar(&o.heal.Config, "config", "", "an .ai-agent.json with the llm providers")
	f.BoolVar(&o.heal.AllowTestEdits, "allow-test-edits", false, "let fixes edit test files and test configuration (never weaken them)")
	f.StringVar(&o.heal.GitAgent, "git-agent", "", "the git_agent program (default: beside salve, then PATH)")
	o.heal.repoConfigOptions.flags(f)
	return cmd
}

func fixRun(ctx context.Context, s *streams, o *fixOptions) error {
	if err := o.validate(); err != nil {
		return exitWith(exitBadInput, err)
	}
	ws, err := filepath.Abs(o.heal.Workspace)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	reports, err := fixReports(o, ws)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	// The gate judges with the rules a heal of this repository has: its
	// .salve.yml, read from the base, as salve heal reads it.
	c := o.heal.config(s, "", s.logger())
	c.Workspace = ws
	o.heal.repoRules(&c)
	notes, err := assemble.ReadRules(ctx, &c)
	switch {
	case errors.Is(err, heal.ErrEnvironment):
		// No git agent: salve fix still runs, under the flags' rules.
		notes = append(notes, fmt.Sprintf("%s not read: %v", repoconfig.File, err))
	case err != nil && !turnedOff(s, "fix", err):
		return exitWith(exitCode(err), err)
	}
	for _, n := range notes {
		fmt.Fprintf(s.Stderr, "salve fix: %s\n", n)
	}
	fixers, _, err := assemble.Fixers(c, nil, nil)
	if err != nil {
		return exitWith(exitBadInput, asFlag(err))
	}
	rules := gateRules{minConf: c.MinConfidence, allowTestEdits: c.AllowTestEdits, protected: c.ProtectedPaths}
	var outs []fixOutput
	for _, group := range heal.GroupByFile(reports) {
		out, err := fixOnce(ctx, ws, group, fixers, rules, s.logger())
		if err != nil {
			return exitWith(exitBadInput, err)
		}
		outs = append(outs, out)
	}
	b, err := json.MarshalIndent(outs, "", "  ")
	if err != nil {
		return exitWith(exitFailure, err)
	}
	fmt.Fprintf(s.Stdout, "%s\n", b)
	for _, out := range outs {
		if out.Accepted == nil {
			return exitWith(exitFailure, nil)
		}
	}
	return nil
}

func fixReports(o *fixOptions, ws string) ([]contract.BugReport, error) {
	switch {
	case o.Bug != "" && o.LogFile != "":
		return nil, errors.New("give --bug or --log, not both")
	case o.Bug != "":
		var many []contract.BugReport
		if err := json.Unmarshal([]byte(o.Bug), &many); err == nil {
			return many, nil
		}
		var one contract.BugReport
		if err := json.Unmarshal([]byte(o.Bug), &one); err != nil {
			return nil, fmt.Errorf("--bug: not a BugReport object or array: %w", err)
		}
		return []contract.BugReport{one}, nil
	case o.LogFile != "":
		b, err := safefile.Read(o.LogFile, safefile.MaxLog)
		if err != nil {
			return nil, fmt.Errorf("--log: %w", err)
		}
		reports := adapter.Parser{}.Parse(string(b), ws)
		if len(reports) == 0 {
			return nil, fmt.Errorf("--log: no bug report found in %s", o.LogFile)
		}
		return reports, nil
	}
	return nil, errors.New("give --bug JSON or --log FILE")
}

// gateRules are what the fix gate judges with: the repository's rules.
type gateRules struct {
	minConf        float64
	allowTestEdits bool
	protected      []string
}

// fixOnce runs the tiers on one file's reports, gating each answer, and
// stops at the first accepted fix. The request is the one salve heal sends
// (heal.PrepareFix: a failing test's fix goes to the code under test), and
// the gate is heal's. The file is never written.
func fixOnce(ctx context.Context, ws string, group []contract.BugReport, fixers []heal.Fixer, rules gateRules, logger *slog.Logger) (fixOutput, error) {
	in, _, err := heal.PrepareFix(ctx, heal.FixPlan{Workspace: ws, Group: group, Targets: adapter.Targets{}, Logger: logger})
	if err != nil {
		return fixOutput{}, err
	}
	out := fixOutput{File: in.Path, Request: in.Request}
	for _, f := range fixers {
		a := fixAttempt{Fixer: f.Name()}
		res, err := f.Fix(ctx, in)
		if err != nil {
			a.Error = err.Error()
			out.Results = append(out.Results, a)
			continue
		}
		a.Result = &res
		d := heal.GateFix(in, res, rules.minConf, rules.allowTestEdits, rules.protected)
		d.Hunks = nil
		a.Gate = &d
		out.Results = append(out.Results, a)
		if d.Accepted {
			out.Accepted = &res
			out.Line = results.FormatFixLine(group[0], res.FixReason)
			break
		}
	}
	return out, nil
}
