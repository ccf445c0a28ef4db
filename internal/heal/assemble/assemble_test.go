package assemble

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
)

// TestNew: every entry point's Config becomes complete core options, the
// lease hook names the branch and the lease, and a bad configuration is
// bad input that reads as its cause.
func TestNew(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	base := Config{Workspace: t.TempDir(), NoStore: true, GitAgent: "git_agent-under-test", Getenv: func(k string) string { return env[k] }}
	tests := []struct {
		name   string
		edit   func(c *Config)
		err    string // empty: assembled
		branch string
		lease  string
		tiers  int
	}{
		{name: "defaults", tiers: 3},
		{name: "rules only", edit: func(c *Config) { c.Fixers = "rules" }, tiers: 1},
		{name: "stand-in llm tier", edit: func(c *Config) { c.Fixers, c.ExplainLLM = "rules", true }, tiers: 2},
		{name: "lease", edit: func(c *Config) {
			c.Lease = func(context.Context, adapter.Git) (string, string, error) { return "salve/heal-pr/main", "abc", nil }
		}, branch: "salve/heal-pr/main", lease: "abc", tiers: 3},
		{name: "unknown tier", edit: func(c *Config) { c.Fixers = "magic" }, err: "fixers: unknown fixer"},
		{name: "bad ci", edit: func(c *Config) { c.CI = "travis" }, err: "ci: want local or github"},
		{name: "ci github without push", edit: func(c *Config) { c.CI, c.GitHubRepo = "github", "a/b" }, err: "push: ci github judges the pushed commit"},
		{name: "lease fails", edit: func(c *Config) {
			c.Lease = func(context.Context, adapter.Git) (string, string, error) { return "", "", errors.New("no base") }
		}, err: "no base"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			if tc.edit != nil {
				tc.edit(&c)
			}
			p, err := New(context.Background(), c)
			if tc.err != "" {
				if !errors.Is(err, heal.ErrBadInput) || !strings.Contains(err.Error(), tc.err) || strings.HasPrefix(err.Error(), heal.ErrBadInput.Error()) {
					t.Fatalf("err %v, want bad input saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			o := p.Options()
			if o.Executor == nil || o.Parser == nil || o.Targets == nil || o.Git == nil || o.Worktrees == nil || o.CI == nil || o.Recorder != nil {
				t.Errorf("options lack a port: %+v", o)
			}
			if o.Branch != tc.branch || o.PushLease != tc.lease || len(o.Fixers) != tc.tiers || len(p.Fixers) != tc.tiers {
				t.Errorf("branch %q lease %q, %d tiers; want %q %q %d", o.Branch, o.PushLease, len(o.Fixers), tc.branch, tc.lease, tc.tiers)
			}
		})
	}
}
