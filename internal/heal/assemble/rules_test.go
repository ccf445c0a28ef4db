package assemble

import (
	"reflect"
	"testing"

	"github.com/salve-dev/salve/internal/heal/repoconfig"
	"github.com/salve-dev/salve/internal/heal/results"
)

// TestApplyRules: under RulesRepo the file fills what the caller did not
// set; under RulesFloor it only tightens: it adds protected paths, turns
// test edits off and keeps a subset of the tiers, and never allows test
// edits, adds a tier or picks the models.
func TestApplyRules(t *testing.T) {
	file := "command: make test\nfixers: [rules, llm, aider]\nmodels: [openai/gpt-4o]\nprotected_paths: [\"*.pem\"]\nmode: suggest\nallow_test_edits: true\n"
	strict := "protected_paths: [\"migrations/**\"]\nallow_test_edits: false\nfixers: [rules]\n"
	for _, tc := range []struct {
		name   string
		file   string
		caller Config
		want   Config
		rec    results.RepoConfig
	}{
		{"repo: the file fills in", file, Config{Rules: RulesRepo},
			Config{Rules: RulesRepo, Command: "make test", Fixers: "rules,llm,aider", Models: []string{"openai/gpt-4o"}, ProtectedPaths: []string{"*.pem"},
				Mode: "suggest", AllowTestEdits: true, AllowTestEditsBy: ".salve.yml allow_test_edits"},
			results.RepoConfig{Applied: []string{"protected_paths: *.pem", "command: make test", "fixers: rules,llm,aider", "models: openai/gpt-4o", "mode: suggest", "allow_test_edits: true"}}},
		{"repo: the caller's flags win", file,
			Config{Rules: RulesRepo, Command: "go test ./...", Fixers: "rules", Explicit: []string{SetCommand, SetFixers, SetModels, SetAllowTestEdits}},
			Config{Rules: RulesRepo, Command: "go test ./...", Fixers: "rules", ProtectedPaths: []string{"*.pem"}, Mode: "suggest",
				Explicit: []string{SetCommand, SetFixers, SetModels, SetAllowTestEdits}},
			results.RepoConfig{Applied: []string{"protected_paths: *.pem", "mode: suggest"}, Overridden: []string{"command", "fixers", "models", "allow_test_edits"}}},
		{"floor: the file cannot loosen", file,
			Config{Rules: RulesFloor, Fixers: "history,rules,llm", Models: []string{"ollama/qwen"}, ProtectedPaths: []string{"secrets/**"}},
			Config{Rules: RulesFloor, Command: "make test", Fixers: "rules,llm", Models: []string{"ollama/qwen"}, ProtectedPaths: []string{"secrets/**", "*.pem"}, Mode: "suggest"},
			results.RepoConfig{Applied: []string{"protected_paths: *.pem", "command: make test", "fixers: rules,llm", "mode: suggest"}, Overridden: []string{"models", "allow_test_edits"}}},
		{"floor: the file tightens", strict,
			Config{Rules: RulesFloor, AllowTestEdits: true, AllowTestEditsBy: "the operator"},
			Config{Rules: RulesFloor, Fixers: "rules", ProtectedPaths: []string{"migrations/**"}},
			results.RepoConfig{Applied: []string{"protected_paths: migrations/**", "fixers: rules", "allow_test_edits: false"}}},
		{"floor: a tier list with nothing allowed keeps the caller's", "fixers: [aider]\n",
			Config{Rules: RulesFloor, Fixers: "rules"},
			Config{Rules: RulesFloor, Fixers: "rules"},
			results.RepoConfig{Overridden: []string{"fixers"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := repoconfig.Parse([]byte(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			c := tc.caller
			var rec results.RepoConfig
			apply(&c, cfg, &rec)
			if !reflect.DeepEqual(c, tc.want) {
				t.Errorf("config\n got %+v\nwant %+v", c, tc.want)
			}
			if !reflect.DeepEqual(rec, tc.rec) {
				t.Errorf("record\n got %+v\nwant %+v", rec, tc.rec)
			}
		})
	}
}
