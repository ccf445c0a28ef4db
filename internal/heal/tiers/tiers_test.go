package tiers_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/tiers"
)

// TestTable checks every row: a unique lower-case name, what it needs, a
// line of doc, and that Lookup finds it.
func TestTable(t *testing.T) {
	want := map[string]tiers.Default{"history": tiers.Always, "rules": tiers.Always, "suggest": tiers.Always, "llm": tiers.WhenConfigured, "agent": tiers.Named, "aider": tiers.Named, "claude": tiers.Named}
	if len(tiers.Table) != len(want) {
		t.Errorf("%d tiers, the test knows %d: add the new row here", len(tiers.Table), len(want))
	}
	seen := map[string]bool{}
	for _, tier := range tiers.Table {
		if seen[tier.Name] || tier.Name != strings.ToLower(tier.Name) || strings.ContainsAny(tier.Name, ", ") {
			t.Errorf("bad or duplicate name %q", tier.Name)
		}
		seen[tier.Name] = true
		if tier.Needs == "" || tier.Doc == "" || strings.Contains(tier.Doc, "\n") {
			t.Errorf("%s: needs %q, doc %q", tier.Name, tier.Needs, tier.Doc)
		}
		if d, ok := want[tier.Name]; !ok || d != tier.Default {
			t.Errorf("%s: default %v, want %v (known %v)", tier.Name, tier.Default, d, ok)
		}
		if got, ok := tiers.Lookup(tier.Name); !ok || got != tier {
			t.Errorf("Lookup(%q) = %+v, %v", tier.Name, got, ok)
		}
	}
	for _, tier := range tiers.Table {
		if tiers.AsksModel(tier.Name) != (tier.Name == "llm" || tier.Name == "agent") {
			t.Errorf("AsksModel(%s) = %v", tier.Name, tiers.AsksModel(tier.Name))
		}
	}
	if _, ok := tiers.Lookup("nonesuch"); ok {
		t.Error("Lookup found an unknown tier")
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"  ", nil, false},
		{"rules", []string{"rules"}, false},
		{"suggest", []string{"suggest"}, false},
		{"rules, suggest,llm ,aider", []string{"rules", "suggest", "llm", "aider"}, false},
		{"rules,,llm", nil, true},
		{"rules,", nil, true},
		{"rules,gpt", nil, true},
		{"RULES", nil, true},
		{strings.Repeat("rules,", 100), nil, true},
	}
	for _, tt := range tests {
		got, err := tiers.Parse(tt.in)
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	_, err := tiers.Parse("rules,gpt")
	if !errors.Is(err, tiers.ErrUnknown) || !strings.Contains(err.Error(), `"gpt" (want history, rules, suggest, llm, agent, aider or claude)`) {
		t.Errorf("unknown tier error: %v", err)
	}
}

func TestTexts(t *testing.T) {
	if got := tiers.DefaultText(); got != "history, rules, suggest, then llm when configured" {
		t.Errorf("DefaultText() = %q", got)
	}
	if got := tiers.Want(); got != "history, rules, suggest, llm, agent, aider or claude" {
		t.Errorf("Want() = %q", got)
	}
	if got := tiers.FlagUsage(); got != "fixer tiers in order, from history,rules,suggest,llm,agent,aider,claude (default: history, rules, suggest, then llm when configured)" {
		t.Errorf("FlagUsage() = %q", got)
	}
	if got := tiers.Defaults(nil); !reflect.DeepEqual(got, []string{"history", "rules", "suggest"}) {
		t.Errorf("Defaults(nil) = %q", got)
	}
	if got := tiers.Defaults(func(tiers.Tier) bool { return true }); !reflect.DeepEqual(got, []string{"history", "rules", "suggest", "llm"}) {
		t.Errorf("Defaults(all) = %q", got)
	}
	h := tiers.Help()
	for _, name := range tiers.Names() {
		if !strings.Contains(h, "  "+name+" ") {
			t.Errorf("Help lacks %s:\n%s", name, h)
		}
	}
}
