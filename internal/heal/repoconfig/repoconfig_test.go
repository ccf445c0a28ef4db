package repoconfig

import (
	"strings"
	"testing"
	"time"
)

// TestParse: every key is read; an unknown key is an error naming it and
// its line; bad values are errors naming their key; size is bounded.
func TestParse(t *testing.T) {
	full := `command: make test
fixers: [history, rules, llm]
models: [openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest]
protected_paths: ["migrations/**", "*.pem"]
mode: both
heal: true
skip_branches: ["release/*"]
allow_test_edits: true
`
	for _, tc := range []struct {
		name, text, err string
	}{
		{"empty", "", ""},
		{"comments only", "# nothing\n", ""},
		{"every key", full, ""},
		{"unknown key", "command: make\nprotect_paths: [x]\n", `line 2: unknown key "protect_paths"; did you mean "protected_paths"?`},
		{"unknown fixer", "fixers: [gpt]\n", `fixers: unknown fixer "gpt"`},
		{"bad model", "models: [gpt-4o]\n", `models: "gpt-4o" is not provider/model`},
		{"bad glob", "protected_paths: [\"../secrets\"]\n", "protected_paths:"},
		{"absolute glob", "protected_paths: [/etc]\n", "protected_paths:"},
		{"bad mode", "mode: review\n", `mode: want pr, suggest or both, got "review"`},
		{"wrong type", "heal: maybe\n", "line 1"},
		{"two documents", "mode: pr\n---\nmode: both\n", "one YAML document"},
		{"multi-line command", "command: \"a\\nb\"\n", "command: one line"},
		{"too large", "# " + strings.Repeat("x", MaxBytes) + "\n", "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), File) {
					t.Fatalf("err %v, want one naming %s with %q", err, File, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.text == full && (c.Command != "make test" || len(c.Fixers) != 3 || len(c.Models) != 2 || c.Mode != ModeBoth ||
				c.Heal == nil || !*c.Heal || !c.AllowTestEdits || len(c.ProtectedPaths) != 2 || len(c.SkipBranches) != 1) {
				t.Errorf("parsed %+v", c)
			}
		})
	}
}

// TestOff: heal: false and skip_branches turn salve off, anchored on the
// branch's whole name.
func TestOff(t *testing.T) {
	no := false
	c := &Config{SkipBranches: []string{"release/*", "main"}}
	for _, tc := range []struct {
		c      *Config
		branch string
		off    bool
	}{
		{nil, "main", false},
		{&Config{}, "main", false},
		{&Config{Heal: &no}, "main", true},
		{c, "main", true},
		{c, "feature/main", false},
		{c, "release/1.2", true},
		{c, "release/1.2/hotfix", false},
		{c, "", false},
	} {
		if got := tc.c.Off(tc.branch); (got != "") != tc.off {
			t.Errorf("%+v Off(%q) = %q, want off %v", tc.c, tc.branch, got, tc.off)
		}
	}
}

// FuzzParse: a repository's file never panics the parser, and what it
// accepts passes its own checks.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "mode: pr\n", "fixers: [rules]\nprotected_paths: ['**/*.lock']\n", "heal: false\nskip_branches: [x]\n", "a: [", "- 1\n", "skip_branches: ['**/**/**/**/**/**/**/x']\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err != nil {
			return
		}
		if err := c.check(); err != nil {
			t.Fatalf("accepted %q: %v", b, err)
		}
		_ = c.Off("main")
	})
}

// TestOffGlobsLinear: a .salve.yml full of skip_branches globs made of
// "**" parts is answered at once against a long branch name, and a glob
// past integrity.MaxGlobLen is refused when the file is read.
func TestOffGlobsLinear(t *testing.T) {
	glob := strings.Repeat("**/", 12) + "x" // 37 bytes
	text := "skip_branches: [" + strings.TrimSuffix(strings.Repeat("'"+glob+"', ", maxList), ", ") + "]\nprotected_paths: ['" + glob + "']\n"
	c, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	branch := strings.Repeat("a/", 40) + "b" // 81 bytes
	done := make(chan string, 1)
	go func() { done <- c.Off(branch) }()
	select {
	case off := <-done:
		if off != "" {
			t.Fatalf("Off(%s) = %q", branch, off)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("skip_branches did not answer in 5s")
	}
	if _, err := Parse([]byte("skip_branches: ['" + strings.Repeat("**/", 90) + "x']\n")); err == nil || !strings.Contains(err.Error(), "skip_branches") {
		t.Fatalf("a 271-byte glob: %v", err)
	}
}

// TestParseExplains: a mistake in the file is named the way its author
// wrote it, with the key meant when one is near, and no Go type names.
func TestParseExplains(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"typo", "comand: make test\n", `.salve.yml: line 1: unknown key "comand"; did you mean "command"?`},
		{"prefix", "heal: true\nprotected: [a]\n", `.salve.yml: line 2: unknown key "protected"; did you mean "protected_paths"?`},
		{"far", "timeout: 5m\n", `.salve.yml: line 1: unknown key "timeout" (the keys are command, fixers, models, protected_paths, mode, heal, skip_branches, allow_test_edits)`},
		{"wrong type", "heal: [yes]\n", `.salve.yml: line 1: a list where true or false belongs`},
		{"text for a list", "models: openai/gpt-4o\n", `.salve.yml: line 1: text where a list of text belongs`},
		{"not a mapping", "- make\n", `.salve.yml: line 1: a list where a mapping of keys belongs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Parse(%q) = %v\nwant %s", tc.text, err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "repoconfig.") {
				t.Errorf("a Go type name: %v", err)
			}
		})
	}
}

// TestHas tells a key set to its zero value from one left out.
func TestHas(t *testing.T) {
	c, err := Parse([]byte("allow_test_edits: false\ncommand: make\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"allow_test_edits": true, "command": true, "heal": false, "fixers": false} {
		if c.Has(key) != want {
			t.Errorf("Has(%q) = %v, want %v", key, !want, want)
		}
	}
	var none *Config
	if none.Has("command") {
		t.Error("a nil configuration has a key")
	}
}
