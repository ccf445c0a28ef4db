package score

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/heal"
)

// corpus is the repository's heal corpus.
var corpus = filepath.Join("..", "..", "testdata", "heal-corpus")

// buildBins builds salve and git_agent into a temporary folder.
func buildBins(t *testing.T) (salve, agent string) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"salve", "git_agent"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "github.com/salve-dev/salve/cmd/"+name)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", name, err, out)
		}
	}
	return filepath.Join(dir, "salve"), filepath.Join(dir, "git_agent")
}

// TestCorpusLoads: every case of the corpus is well formed, the corpus
// covers the six languages and the three classes, and has both controls.
func TestCorpusLoads(t *testing.T) {
	cases, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	langs, classes, expects := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range cases {
		langs[c.Language]++
		classes[c.Class]++
		expects[c.Expect]++
	}
	if len(cases) < 30 {
		t.Errorf("%d cases, want at least 30", len(cases))
	}
	for _, l := range []string{"go", "python", "c", "javascript", "typescript", "rust", "java"} {
		if langs[l] == 0 {
			t.Errorf("no %s case", l)
		}
	}
	for _, c := range []string{ClassMechanical, ClassSuggestion, ClassNeedsLLM, ClassControl} {
		if classes[c] == 0 {
			t.Errorf("no %s case", c)
		}
	}
	if expects[ExpectGreen] == 0 || expects[ExpectEnvironment] == 0 {
		t.Errorf("controls missing: %v", expects)
	}
}

// TestFastSubset runs the real salve binary on the controls and a few
// cases: the green control stays green with nothing committed, the
// environment controls end with exit 3 and nothing committed, mechanical
// slips in Go, Python and C are healed minimally, and a logic bug no
// deterministic tier can fix stays red without a false success. Every
// checkout is left untouched.
func TestFastSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("builds salve and runs real builds")
	}
	salve, agent := buildBins(t)
	// The case -> whether it must pass. Cases marked false must stay red
	// (a logic bug), or are run for safety only (nil): the rules tier of
	// the day decides whether they heal.
	yes, no := true, false
	want := map[string]*bool{
		"control-go-green":        &yes,
		"control-go-env":          &yes,
		"control-js-missing-tool": &yes,
		"go-unused-import":        &yes,
		"c-missing-semicolon":     &yes,
		"py-tab-indent":           nil,
		"go-logic":                &no,
	}
	all, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	for _, c := range all {
		if _, ok := want[c.Name]; ok {
			cases = append(cases, c)
		}
	}
	if len(cases) != len(want) {
		t.Fatalf("found %d of the %d cases", len(cases), len(want))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	results, err := Run(ctx, cases, Options{Salve: salve, GitAgent: agent, Isolation: "none", Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	_ = WriteTable(&table, results)
	t.Logf("\n%s", table.String())
	for _, r := range results {
		if r.Skipped != "" {
			t.Logf("%s skipped: %s", r.Case, r.Skipped)
			continue
		}
		if w := want[r.Case]; w != nil && r.Pass != *w {
			t.Errorf("%s: pass = %v, want %v (%+v)", r.Case, r.Pass, *w, r)
		}
		if !r.Untouched || r.FalseSuccess {
			t.Errorf("%s: untouched %v, false success %v: %v", r.Case, r.Untouched, r.FalseSuccess, r.Notes)
		}
	}
}

func TestOutsideDefects(t *testing.T) {
	defects := []Defect{{File: "a.go", Line: 10}, {File: "b.go", Line: 2}}
	tests := []struct {
		name string
		diff string
		bad  int
	}{
		{"edit on the line", "diff --git a/a.go b/a.go\n@@ -10 +10 @@\n-x\n+y\n", 0},
		{"edit 3 lines away", "diff --git a/a.go b/a.go\n@@ -13,1 +13,1 @@\n-x\n+y\n", 0},
		{"edit 4 lines away", "diff --git a/a.go b/a.go\n@@ -14 +14 @@\n-x\n+y\n", 1},
		{"insertion next to the window", "diff --git a/b.go b/b.go\n@@ -5,0 +6 @@\n+import x\n", 0},
		{"insertion far away", "diff --git a/b.go b/b.go\n@@ -9,0 +10 @@\n+x\n", 1},
		{"a wide hunk reaching out", "diff --git a/a.go b/a.go\n@@ -8,7 +8,7 @@\n", 1},
		{"another file", "diff --git a/c.go b/c.go\n@@ -1 +1 @@\n-x\n+y\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outsideDefects(tt.diff, defects); len(got) != tt.bad {
				t.Errorf("outsideDefects = %q, want %d notes", got, tt.bad)
			}
		})
	}
}

func TestLoadCaseRejects(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"bad class", `{"class":"easy","expect":"healed","command":"true","defects":[{"file":"a","line":1}]}`, "class"},
		{"no command", `{"class":"mechanical","expect":"healed","defects":[{"file":"a","line":1}]}`, "no command"},
		{"no defects", `{"class":"mechanical","expect":"healed","command":"true"}`, "planted defects"},
		{"escaping path", `{"class":"mechanical","expect":"healed","command":"true","defects":[{"file":"../a","line":1}]}`, "bad defect"},
		{"missing file", `{"class":"mechanical","expect":"healed","command":"true","defects":[{"file":"b","line":1}]}`, "defect file"},
		{"unknown field", `{"class":"mechanical","expect":"healed","command":"true","oops":1}`, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_ = os.MkdirAll(filepath.Join(dir, "tree"), 0o755)
			_ = os.WriteFile(filepath.Join(dir, "tree", "a"), []byte("x\n"), 0o644)
			_ = os.WriteFile(filepath.Join(dir, "case.json"), []byte(tc.json), 0o644)
			_, err := LoadCase(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// BenchmarkHealCorpus scores the whole corpus once per iteration and
// reports the passes per class. Run with
//
//	go test ./heal/score -run XXX -bench HealCorpus -benchtime 1x -timeout 60m
func BenchmarkHealCorpus(b *testing.B) {
	dir := b.TempDir()
	var bins []string
	for _, name := range []string{"salve", "git_agent"} {
		p := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", p, "github.com/salve-dev/salve/cmd/"+name)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", name, err, out)
		}
		bins = append(bins, p)
	}
	cases, err := Load(corpus)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		results, err := Run(context.Background(), cases, Options{Salve: bins[0], GitAgent: bins[1]})
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range Summarize(results) {
			if f.Cases > 0 {
				b.ReportMetric(float64(f.Passed)/float64(f.Cases), fmt.Sprintf("pass-rate-%s", f.Class))
			}
		}
	}
}

// TestCorpusFixedFilesAreMinimal: each case's fixed/ files (the reference
// fix; scripts/heal-corpus/check-cases.sh proves that they pass the
// command) change only lines within ±3 of a planted line, so the
// minimality a healed case is held to is reachable.
func TestCorpusFixedFilesAreMinimal(t *testing.T) {
	cases, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		fixed := filepath.Join(c.Dir, "fixed")
		if _, err := os.Stat(fixed); err != nil {
			if c.Expect == ExpectHealed {
				t.Errorf("%s: no fixed/ files", c.Name)
			}
			continue
		}
		err := filepath.WalkDir(fixed, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(fixed, p)
			rel = filepath.ToSlash(rel)
			after, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			before, err := os.ReadFile(TreeFile(c.Dir, rel))
			if err != nil {
				return err
			}
			n++
			var diff strings.Builder
			fmt.Fprintf(&diff, "diff --git a/%s b/%s\n", rel, rel)
			for _, h := range heal.LineDiff(string(before), string(after)) {
				fmt.Fprintf(&diff, "@@ -%d,%d +%d @@\n", h.OldStart, len(h.Old), h.OldStart)
			}
			for _, why := range outsideDefects(diff.String(), c.Defects) {
				t.Errorf("%s: %s", c.Name, why)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if n < 30 {
		t.Errorf("only %d fixed files", n)
	}
}

// TestLoadRefusesMissingDefectFile: a case whose planted file is missing is
// an error, never a case silently left out of the score.
func TestLoadRefusesMissingDefectFile(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "broken-case")
	if err := os.MkdirAll(filepath.Join(c, "tree"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `{"language":"go","class":"mechanical","expect":"healed","command":"go build ./...","defects":[{"file":"gone.go","line":3,"slip":"x"}]}`
	if err := os.WriteFile(filepath.Join(c, "case.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "gone.go") {
		t.Errorf("Load = %v, want an error naming gone.go", err)
	}
	if err := os.WriteFile(filepath.Join(c, "tree", "gone.go.input"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cs, err := Load(dir); err != nil || len(cs) != 1 {
		t.Errorf("with the file kept as .go.input: %v, %d cases", err, len(cs))
	}
}
