package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/score"
	"github.com/salve-dev/salve/internal/heal/tiers"
)

// benchOptions are the flags of "salve bench".
type benchOptions struct {
	Salve     string
	GitAgent  string
	Cases     []string
	Isolation string
	Timeout   time.Duration
	WorkDir   string
	JSON      bool
	Fixers    string
	Models    []string
	Config    string
}

// newBenchCmd builds "salve bench DIR": the heal corpus scorer.
func newBenchCmd(s *streams) *cobra.Command {
	o := &benchOptions{}
	cmd := &cobra.Command{
		Use:   "bench DIR",
		Short: "Score salve heal on a corpus of broken projects",
		Long: `Score salve heal on a corpus of broken projects (each a folder with
case.json and tree/).

For each case, bench makes a throw-away git repository from the tree, with an
unstaged edit, a staged file and an untracked file in it, runs "salve heal" there
(with no LLM provider in the environment, unless --fixers names a tier that asks
a model or --models is given), and measures: healed (a fresh clone
of the heal branch passes the case's command), false success (heal exited 0
but the clone fails), untouched (HEAD, index, status, branches and every file
of the checkout unchanged), minimal (every changed line within ±3 lines of a
planted line), the time, and what the model tiers spent (requests, agent turns
and tool calls, tokens, cost). It prints one line per case and the figures per
class (mechanical, suggestion, needs_llm, control).

Exit status: 0 when no case lost the user's work or claimed a false success,
1 otherwise, 2 bad input.`,
		Example: `  salve bench testdata/heal-corpus
  salve bench testdata/heal-corpus --case go- --json
  salve bench testdata/heal-corpus --fixers rules,suggest,agent --models openai/gpt-4o-mini`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return benchRun(c.Context(), s, o, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Salve, "salve", "", "the salve binary to score (default: this one)")
	f.StringVar(&o.GitAgent, "git-agent", "", "the git_agent program (default: beside salve, then PATH)")
	f.StringSliceVar(&o.Cases, "case", nil, "only the cases whose name contains one of these")
	f.StringVar(&o.Isolation, "isolation", "", "passed to salve heal --isolation")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "the limit of each heal and each check build")
	f.StringVar(&o.WorkDir, "work", "", "keep each case's repository, clone and results.json under this folder (default: a temporary folder, removed)")
	f.BoolVar(&o.JSON, "json", false, "print the results and figures as JSON")
	f.StringVar(&o.Fixers, "fixers", "", "passed to salve heal --fixers: "+tiers.FlagUsage())
	f.StringSliceVar(&o.Models, "models", nil, "passed to salve heal --models (provider/model,...); keeps the provider's variables in the environment")
	f.StringVar(&o.Config, "config", "", "passed to salve heal --config (an .ai-agent.json)")
	return cmd
}

func benchRun(ctx context.Context, s *streams, o *benchOptions, dir string) error {
	cases, err := score.Load(dir)
	if err != nil {
		return exitWith(exitBadInput, err)
	}
	if len(o.Cases) > 0 {
		var keep []score.Case
		for _, c := range cases {
			for _, want := range o.Cases {
				if strings.Contains(c.Name, want) {
					keep = append(keep, c)
					break
				}
			}
		}
		if len(keep) == 0 {
			return exitWith(exitBadInput, fmt.Errorf("bench: no case matches %v", o.Cases))
		}
		cases = keep
	}
	if o.Salve == "" {
		if o.Salve, err = os.Executable(); err != nil {
			return exitWith(exitBadInput, fmt.Errorf("bench: give --salve: %w", err))
		}
	}
	agent, err := assemble.GitAgent(o.GitAgent, s.Getenv)
	if err != nil {
		return exitWith(exitEnvironment, err)
	}
	names, err := tiers.Parse(o.Fixers)
	if err != nil {
		return exitWith(exitBadInput, fmt.Errorf("bench: --fixers: %w", err))
	}
	config := o.Config
	if config != "" {
		if config, err = filepath.Abs(config); err != nil {
			return exitWith(exitBadInput, fmt.Errorf("bench: --config: %w", err))
		}
	}
	keep := len(o.Models) > 0 || slices.ContainsFunc(names, tiers.AsksModel)
	var env []string
	if keep {
		// The model tiers need the provider's key, which salve took out
		// of its own environment: the heals get it back.
		env = s.secrets.environ()
	}
	results, err := score.Run(ctx, cases, score.Options{Salve: o.Salve, GitAgent: agent, Isolation: o.Isolation, Timeout: o.Timeout, WorkDir: o.WorkDir,
		Env: env, KeepLLM: keep, Fixers: o.Fixers, Models: o.Models, ConfigFile: config})
	if err != nil {
		return exitWith(exitFailure, err)
	}
	if o.JSON {
		b, err := contract.MarshalIndentJSON(map[string]any{"results": results, "figures": score.Summarize(results)})
		if err != nil {
			return exitWith(exitFailure, err)
		}
		_, _ = s.Stdout.Write(b)
	} else if err := score.WriteTable(s.Stdout, results); err != nil {
		return exitWith(exitFailure, err)
	}
	for _, r := range results {
		if r.Skipped == "" && (r.FalseSuccess || !r.Untouched) {
			return exitWith(exitFailure, fmt.Errorf("bench: case %s lost the user's work or claimed a false success", r.Case))
		}
	}
	return nil
}
