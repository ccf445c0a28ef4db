package main

import (
	"errors"
	"io"
	"testing"

	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/tiers"
)

// TestBuildFixersFollowsTheTable: every tier of the one table (internal/heal/tiers)
// is built by salve heal --fixers under its own name, and a name the table
// lacks is refused with tiers.ErrUnknown.
func TestBuildFixersFollowsTheTable(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": "sk-test-tiers", "HOME": home}
	s := &streams{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }}
	log := (&logOptions{Format: "text"}).logger(io.Discard)
	for _, tier := range tiers.Table {
		fixers, _, err := assemble.Fixers((&healOptions{Fixers: tier.Name}).config(s, "", log), nil, nil)
		if err != nil {
			t.Errorf("--fixers %s: %v", tier.Name, err)
			continue
		}
		if len(fixers) != 1 || fixers[0].Name() != tier.Name {
			t.Errorf("--fixers %s built %d fixer(s)", tier.Name, len(fixers))
		}
	}
	fixers, _, err := assemble.Fixers((&healOptions{}).config(s, "", log), nil, nil)
	var names []string
	for _, f := range fixers {
		names = append(names, f.Name())
	}
	want := tiers.Defaults(func(tiers.Tier) bool { return true })
	if err != nil || len(names) != len(want) {
		t.Fatalf("default fixers %v (%v), want %v", names, err, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("default fixers %v, want %v", names, want)
		}
	}
	for _, bad := range []string{"rules,magic", "rules,,llm"} {
		if _, _, err := assemble.Fixers((&healOptions{Fixers: bad}).config(s, "", log), nil, nil); err == nil {
			t.Errorf("--fixers %q accepted", bad)
		}
	}
	if _, _, err := assemble.Fixers((&healOptions{Fixers: "magic"}).config(s, "", log), nil, nil); !errors.Is(err, tiers.ErrUnknown) {
		t.Errorf("--fixers magic: %v", err)
	}
}
