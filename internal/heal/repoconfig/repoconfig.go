// Package repoconfig reads a repository's heal configuration, the file
// .salve.yml, as a commit of its base branch holds it: never the work
// tree's copy, and never the change under heal's, so a change cannot
// choose the rules it is healed under. Parsing is strict (an unknown key
// is an error naming it, with its line) and bounded. The keys are
// documented in docs/heal.md, "Repository configuration".
package repoconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/salve-dev/salve/internal/heal/integrity"
	"github.com/salve-dev/salve/internal/heal/tiers"
	"github.com/salve-dev/salve/internal/textdist"
)

// File is the configuration's path at the repository's root.
const File = ".salve.yml"

// MaxBytes bounds the file.
const MaxBytes = 64 << 10

// The modes of Config.Mode: what a heal of a failing pull request posts.
const (
	// ModePR opens (or updates) the heal pull request.
	ModePR = "pr"
	// ModeSuggest posts the verified fix as suggestions in a review of
	// the failing pull request, and opens no heal pull request.
	ModeSuggest = "suggest"
	// ModeBoth does both.
	ModeBoth = "both"
)

// Bounds of the lists, each item at most maxItem bytes.
const (
	maxList = 64
	maxItem = 512
)

// Config is the repository's configuration. A zero field means the key is
// absent: the caller's default applies.
type Config struct {
	// Command is the build command (salve heal --cmd).
	Command string `yaml:"command" json:"command,omitempty"`
	// Fixers are the fixer tiers in order (salve heal --fixers), names of
	// package tiers.
	Fixers []string `yaml:"fixers" json:"fixers,omitempty"`
	// Models are the llm tier's targets, provider/model, in fallback
	// order (salve heal --models).
	Models []string `yaml:"models" json:"models,omitempty"`
	// ProtectedPaths are globs of paths no fix may edit
	// (integrity.MatchPath).
	ProtectedPaths []string `yaml:"protected_paths" json:"protected_paths,omitempty"`
	// Mode is ModePR, ModeSuggest or ModeBoth.
	Mode string `yaml:"mode" json:"mode,omitempty"`
	// Heal false turns salve off for the repository.
	Heal *bool `yaml:"heal" json:"heal,omitempty"`
	// SkipBranches are globs of branches whose failures salve leaves
	// alone (integrity.MatchAnchored: "release/*", "dependabot/**").
	SkipBranches []string `yaml:"skip_branches" json:"skip_branches,omitempty"`
	// AllowTestEdits lets fixes edit test files and test configuration
	// (never weaken a check).
	AllowTestEdits bool `yaml:"allow_test_edits" json:"allow_test_edits,omitempty"`

	// keys are the keys the file sets (Has).
	keys map[string]bool
}

// Has reports whether the file sets key, even to its zero value
// (allow_test_edits: false).
func (c *Config) Has(key string) bool { return c != nil && c.keys[key] }

// Parse reads and checks a configuration. An empty file is an empty
// configuration.
func Parse(b []byte) (*Config, error) {
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", File, MaxBytes)
	}
	c := &Config{}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", File, explain(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document", File)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(b, &top); err == nil {
		c.keys = make(map[string]bool, len(top))
		for k := range top {
			c.keys[k] = true
		}
	}
	return c, nil
}

func (c *Config) check() error {
	if len(c.Command) > 4096 || strings.ContainsAny(c.Command, "\x00\n\r") {
		return errors.New("command: one line of at most 4096 bytes")
	}
	lists := []struct {
		key  string
		vals []string
		each func(string) error
	}{
		{"fixers", c.Fixers, func(s string) error { return tiers.Check([]string{s}) }},
		{"models", c.Models, checkModel},
		{"protected_paths", c.ProtectedPaths, integrity.CheckGlob},
		{"skip_branches", c.SkipBranches, integrity.CheckGlob},
	}
	for _, l := range lists {
		if len(l.vals) > maxList {
			return fmt.Errorf("%s: at most %d items", l.key, maxList)
		}
		for _, v := range l.vals {
			if len(v) > maxItem {
				return fmt.Errorf("%s: an item is longer than %d bytes", l.key, maxItem)
			}
			if err := l.each(v); err != nil {
				return fmt.Errorf("%s: %w", l.key, err)
			}
		}
	}
	switch c.Mode {
	case "", ModePR, ModeSuggest, ModeBoth:
	default:
		return fmt.Errorf("mode: want %s, %s or %s, got %q", ModePR, ModeSuggest, ModeBoth, c.Mode)
	}
	return nil
}

// checkModel accepts provider/model with no space or control character.
func checkModel(m string) error {
	p, name, ok := strings.Cut(m, "/")
	if !ok || p == "" || name == "" || strings.ContainsFunc(m, func(r rune) bool { return r <= ' ' || r == 0x7f }) || m[0] == '-' {
		return fmt.Errorf("%q is not provider/model", m)
	}
	return nil
}

// Off reports why the configuration turns salve off for a failure on
// branch ("" when it does not): heal: false, or a skip_branches glob that
// matches branch.
func (c *Config) Off(branch string) string {
	if c == nil {
		return ""
	}
	if c.Heal != nil && !*c.Heal {
		return File + " says heal: false"
	}
	for _, g := range c.SkipBranches {
		if branch != "" && integrity.MatchAnchored(g, branch) {
			return fmt.Sprintf("%s skips branch %s (skip_branches: %s)", File, branch, g)
		}
	}
	return ""
}

// Keys are the configuration's keys, in the order the guide lists them.
func Keys() []string {
	t := reflect.TypeFor[Config]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// unknownField is how the YAML decoder reports a key Config lacks.
var unknownField = regexp.MustCompile(`^line (\d+): field (.+) not found in type \S+$`)

// wrongType is how the YAML decoder reports a value of the wrong kind.
var wrongType = regexp.MustCompile(`^line (\d+): cannot unmarshal (!!\w+)( .*)? into (\S+)$`)

// What a person calls the kinds of values in a message about the file.
var (
	yamlKinds = map[string]string{"!!seq": "a list", "!!map": "a mapping", "!!str": "text", "!!int": "a number",
		"!!float": "a number", "!!bool": "true or false", "!!null": "nothing", "!!timestamp": "a date"}
	goKinds = map[string]string{"bool": "true or false", "string": "text", "[]string": "a list of text", "repoconfig.Config": "a mapping of keys"}
)

// explain rewrites the decoder's messages about the file's content for
// the person who wrote it: an unknown key is named with the key it is
// nearest to, and Go's type names stay out.
func explain(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, m := range te.Errors {
		if sub := unknownField.FindStringSubmatch(m); sub != nil {
			msg := fmt.Sprintf("line %s: unknown key %q", sub[1], sub[2])
			if near := textdist.Closest(sub[2], Keys()); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			} else {
				msg += " (the keys are " + strings.Join(Keys(), ", ") + ")"
			}
			msgs = append(msgs, msg)
			continue
		}
		if sub := wrongType.FindStringSubmatch(m); sub != nil {
			msgs = append(msgs, fmt.Sprintf("line %s: %s where %s belongs", sub[1], yamlKinds[sub[2]], goKinds[strings.TrimPrefix(sub[4], "*")]))
			continue
		}
		msgs = append(msgs, strings.ReplaceAll(m, "repoconfig.", ""))
	}
	return errors.New(strings.Join(msgs, "; "))
}
