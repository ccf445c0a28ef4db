// Package tiers is the one list of the heal's fixer tiers: their names,
// what each needs, which are in the default list, and a line on what each
// does. The CLI (salve heal --fixers), the MCP heal tool and the jobs API
// validate against it and describe the tiers from it; cmd/salve builds the
// fixers themselves. The package imports only the standard library, so
// that reading the table links none of the fixers.
package tiers

import (
	"errors"
	"fmt"
	"strings"
)

// Default says whether a tier is in the list used when none is given.
type Default int

// The defaults.
const (
	// Named: the tier runs only when asked for.
	Named Default = iota
	// Always: the tier is in the default list.
	Always
	// WhenConfigured: the tier is in the default list when what it needs
	// is configured, and left out (with a warning) otherwise.
	WhenConfigured
)

// Tier is one row of [Table].
type Tier struct {
	// Name is how --fixers, the MCP heal tool and the jobs API name it.
	Name string
	// Needs says what the tier needs to run.
	Needs string
	// Default says whether it is in the default list.
	Default Default
	// Doc says in a line what the tier does.
	Doc string
	// RenamesFromCommit says the tier renames only as the breaking
	// commit's own diff renamed: the one tier whose rename of a name a
	// test can no longer find may reach a test file.
	RenamesFromCommit bool
	// AsksModel says the tier sends requests to an LLM provider: a heal
	// that lists it needs the provider's settings.
	AsksModel bool
}

// Table lists the fixer tiers in their default order.
var Table = []Tier{
	{Name: "history", Needs: "the diff of the commit that broke the build, read through the git agent", Default: Always,
		Doc:               "finishes the breaking commit's own change: a rename or a new parameter it applied elsewhere but missed at the reported line; no API key",
		RenamesFromCommit: true},
	{Name: "rules", Needs: "nothing: the rules are embedded", Default: Always,
		Doc: "deterministic fixes from salve's embedded rules (imports, typos, missing declarations); no API key"},
	{Name: "suggest", Needs: "the project's toolchain, which it re-runs for structured diagnostics", Default: Always,
		Doc: "the fixes the compilers themselves propose: rustc and gcc/clang fix-its, \"did you mean\", the nearest declared name; no API key"},
	{Name: "llm", Needs: "a model provider: --models provider/model, an .ai-agent.json, or OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST", Default: WhenConfigured,
		Doc: "a minimal fix from an LLM, through the agent runtime (retries, fallback, context guard, accounting)", AsksModel: true},
	{Name: "agent", Needs: "a model provider, as the llm tier; its budgets come from the heal.agent section of the ai-agent configuration", Default: Named,
		Doc:       "an LLM that investigates on the agent runtime: it reads files, searches, runs the failing tests and proposes edits the gate judges at once, possibly in several files, within budgets",
		AsksModel: true},
	{Name: "aider", Needs: "the aider program", Default: Named,
		Doc: "hands the fix to aider through the tool adapter, confined to the reported files"},
	{Name: "claude", Needs: "the claude program (Claude Code) and ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL points it at a local or proxy endpoint", Default: Named,
		Doc: "hands the fix to Claude Code through the tool adapter: one turn that may only read and edit the reported file, with no shell, hooks or MCP servers"},
}

// ErrUnknown is wrapped by [Parse] for a name that is not a tier.
var ErrUnknown = errors.New("unknown fixer")

// Lookup returns the tier called name.
func Lookup(name string) (Tier, bool) {
	for _, t := range Table {
		if t.Name == name {
			return t, true
		}
	}
	return Tier{}, false
}

// Names returns the names of all tiers, in the table's order.
func Names() []string {
	out := make([]string, len(Table))
	for i, t := range Table {
		out[i] = t.Name
	}
	return out
}

// Check returns an error wrapping [ErrUnknown] for the first name that is
// not a tier.
func Check(names []string) error {
	for _, n := range names {
		if _, ok := Lookup(n); !ok {
			return fmt.Errorf("%w %q (want %s)", ErrUnknown, n, Want())
		}
	}
	return nil
}

// maxList bounds a list of tiers given as text: it comes from requests.
const maxList = 256

// Parse splits a comma-separated list of tiers ("rules, llm") and checks
// each name. A blank list gives nil: the default list applies. An empty
// item ("rules,,llm") or an unknown name is an error.
func Parse(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	if len(list) > maxList {
		return nil, fmt.Errorf("the list of fixer tiers is longer than %d bytes", maxList)
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, fmt.Errorf("an empty fixer tier in %q (want a comma-separated list of %s)", list, Want())
		}
		names = append(names, n)
	}
	if err := Check(names); err != nil {
		return nil, err
	}
	return names, nil
}

// Defaults returns the default list: the tiers marked [Always], and those
// marked [WhenConfigured] for which configured returns true (nil means
// none is configured).
func Defaults(configured func(Tier) bool) []string {
	var out []string
	for _, t := range Table {
		if t.Default == Always || (t.Default == WhenConfigured && configured != nil && configured(t)) {
			out = append(out, t.Name)
		}
	}
	return out
}

// Want lists the tier names for an error message: "rules, suggest, llm or
// aider".
func Want() string {
	n := Names()
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// DefaultText says what the default list is: "rules, suggest, then llm
// when configured".
func DefaultText() string {
	var always, cond []string
	for _, t := range Table {
		switch t.Default {
		case Always:
			always = append(always, t.Name)
		case WhenConfigured:
			cond = append(cond, t.Name)
		}
	}
	s := strings.Join(always, ", ")
	if len(cond) > 0 {
		s += ", then " + strings.Join(cond, ", ") + " when configured"
	}
	return s
}

// FlagUsage is the one-line description of a list of tiers, for a flag or
// a schema property.
func FlagUsage() string {
	return fmt.Sprintf("fixer tiers in order, from %s (default: %s)", strings.Join(Names(), ","), DefaultText())
}

// Help describes every tier, one per line: its name, what it does and
// what it needs, and the default list.
func Help() string {
	var b strings.Builder
	for _, t := range Table {
		fmt.Fprintf(&b, "  %-8s %s. Needs %s.\n", t.Name, t.Doc, t.Needs)
	}
	fmt.Fprintf(&b, "The default is %s.\n", DefaultText())
	return b.String()
}

// AsksModel reports whether the tier named name sends requests to an LLM
// provider (see [Tier.AsksModel]).
func AsksModel(name string) bool {
	t, ok := Lookup(name)
	return ok && t.AsksModel
}

// RenamesFromCommit reports whether the tier named name renames only as
// the breaking commit did (see [Tier.RenamesFromCommit]).
func RenamesFromCommit(name string) bool {
	t, ok := Lookup(name)
	return ok && t.RenamesFromCommit
}
