package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/internal/heal/assemble"
	"github.com/salve-dev/salve/internal/heal/repoconfig"
)

// repoConfigOptions are the flags of "salve heal" about the repository's
// configuration (.salve.yml, docs/heal.md "Repository configuration").
// The assembly reads and applies the file; the command says only which
// of its settings the command line set.
type repoConfigOptions struct {
	RepoConfigRef string
	NoRepoConfig  bool

	fs *pflag.FlagSet
}

func (r *repoConfigOptions) flags(f *pflag.FlagSet) {
	r.fs = f
	f.StringVar(&r.RepoConfigRef, "repo-config-ref", "", "the commit "+repoconfig.File+" is read from (default: the pull or merge request's target branch when CI names it, fetched from origin if the checkout lacks it, else the remote's default branch when it does not hold the change); never the work tree nor the change")
	f.BoolVar(&r.NoRepoConfig, "no-repo-config", false, "do not read "+repoconfig.File)
}

// repoRules says how the heal takes the repository's file: its settings
// apply where the command line set none.
func (r *repoConfigOptions) repoRules(c *assemble.Config) {
	c.Rules, c.RepoConfigRef = assemble.RulesRepo, r.RepoConfigRef
	if r.NoRepoConfig {
		c.Rules = assemble.RulesNone
	}
	for flag, key := range map[string]string{"cmd": assemble.SetCommand, "fixers": assemble.SetFixers, "models": assemble.SetModels,
		"suggest-review": assemble.SetMode, "allow-test-edits": assemble.SetAllowTestEdits} {
		if r.fs != nil && r.fs.Changed(flag) {
			c.Explicit = append(c.Explicit, key)
		}
	}
}

// turnedOff reports, and prints, an assembly that the repository's file
// turned off: nothing to heal, which is no failure.
func turnedOff(s *streams, cmd string, err error) bool {
	var off *assemble.OffError
	if !errors.As(err, &off) {
		return false
	}
	fmt.Fprintf(s.Stderr, "salve %s: %v\n", cmd, off)
	return true
}
