package score

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
)

// corpus is the repository's heal corpus.
var corpus = filepath.Join("..", "..", "..", "testdata", "heal-corpus")

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
// covers the seven languages and every class, and has both controls, a
// flaky case and logic bugs that must stay red without an LLM.
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
	for _, c := range []string{ClassMechanical, ClassSuggestion, ClassHistory, ClassNeedsLLM, ClassFlaky, ClassControl} {
		if classes[c] == 0 {
			t.Errorf("no %s case", c)
		}
	}
	if expects[ExpectGreen] == 0 || expects[ExpectEnvironment] == 0 || expects[ExpectFlaky] == 0 {
		t.Errorf("controls missing: %v", expects)
	}
	for _, c := range cases {
		if c.Class == ClassNeedsLLM && c.Expectation(false) != ExpectRed {
			t.Errorf("%s: a logic bug must be expected red without an LLM (without_llm)", c.Name)
		}
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
	// The case -> whether it must pass, or nil for cases run for safety
	// only: the rules tier of the day decides whether they heal, and
	// whether heal reports a flaky test (exit 5) yet. A logic bug passes
	// by staying red with no test edited.
	yes := true
	want := map[string]*bool{
		"control-go-green":        &yes,
		"control-go-env":          &yes,
		"control-js-missing-tool": &yes,
		"go-unused-import":        &yes,
		"c-missing-semicolon":     &yes,
		"py-tab-indent":           nil,
		"go-logic":                &yes,
		"go-test-failure-in-code": &yes,
		"go-flaky":                nil,
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
		{"history case without its before tree", `{"class":"history","expect":"healed","command":"true","defects":[{"file":"a","line":1}]}`, "before/"},
		{"bad expectation without an LLM", `{"class":"needs_llm","expect":"healed","without_llm":"grey","command":"true","defects":[{"file":"a","line":1}]}`, "without_llm"},
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
//	go test ./internal/heal/score -run XXX -bench HealCorpus -benchtime 1x -timeout 60m
//
// With -short (make bench's small run) it scores the first case of each
// language only (the part of a case's name before its first "-").
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
	if testing.Short() {
		seen := map[string]bool{}
		cases = slices.DeleteFunc(cases, func(c Case) bool {
			lang, _, _ := strings.Cut(c.Name, "-")
			defer func() { seen[lang] = true }()
			return seen[lang]
		})
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

func TestIsTestFile(t *testing.T) {
	for p, want := range map[string]bool{
		"page_test.go":                            true,
		"internal/money/round_test.go":            true,
		"page.go":                                 false,
		"tests/test_leapyear.py":                  true,
		"test_roman.py":                           true,
		"pkg/roman_test.py":                       true,
		"conftest.py":                             true,
		"leapyear.py":                             false,
		"src/chunk.test.js":                       true,
		"src/cart.spec.ts":                        true,
		"src/__tests__/cart.js":                   true,
		"test/manifest.js":                        true,
		"src/chunk.js":                            false,
		"src/test/java/com/acme/RangeTest.java":   true,
		"core/src/test/kotlin/RangeTest.kt":       true,
		"src/main/java/com/acme/range/Range.java": false,
		"tests/integration.rs":                    true,
		"src/lib.rs":                              false,
		"contest.py":                              false,
		"latest/notes.go":                         false,
	} {
		if got := IsTestFile(p); got != want {
			t.Errorf("IsTestFile(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestExpectation(t *testing.T) {
	c := Case{Expect: ExpectHealed, WithoutLLM: ExpectRed}
	if c.Expectation(false) != ExpectRed || c.Expectation(true) != ExpectHealed {
		t.Errorf("Expectation = %q without, %q with an LLM", c.Expectation(false), c.Expectation(true))
	}
	if (Case{Expect: ExpectFlaky}).Expectation(false) != ExpectFlaky {
		t.Error("a case without without_llm keeps its expectation")
	}
}

// TestCorpusFixesLeaveTestsAlone: no reference fix changes a test file
// unless its case allows it, so a heal held to "no test edited" can pass.
func TestCorpusFixesLeaveTestsAlone(t *testing.T) {
	cases, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		fixed := filepath.Join(c.Dir, "fixed")
		_ = filepath.WalkDir(fixed, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(fixed, p)
			if IsTestFile(filepath.ToSlash(rel)) && !c.TestsEditable {
				t.Errorf("%s: the reference fix changes the test file %s", c.Name, rel)
			}
			return nil
		})
	}
}

// fakeSalve is a stand-in for "salve heal": it reads the repository and
// results paths from its arguments and acts as FAKE_HEAL says: "flaky"
// exits 5, "red" exits 1, "cheat" commits an edit of the test file on a
// heal branch (with plumbing, leaving the checkout alone) and exits 0.
const fakeSalve = `#!/bin/sh
while [ $# -gt 0 ]; do
	case "$1" in
	--workspace) repo=$2; shift ;;
	--results) res=$2; shift ;;
	esac
	shift
done
case "$FAKE_HEAL" in
flaky) echo '{"outcome":"flaky","commits":[]}' >"$res"; exit 5 ;;
red) echo '{"outcome":"failed","commits":[]}' >"$res"; exit 1 ;;
cheat)
	cd "$repo" || exit 9
	base=$(git rev-parse HEAD)
	export GIT_INDEX_FILE="$res.index"
	git read-tree HEAD
	blob=$(printf 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n' | git hash-object -w --stdin)
	git update-index --cacheinfo 100644,"$blob",calc_test.go
	commit=$(git -c user.name=x -c user.email=x@example.com commit-tree "$(git write-tree)" -p "$base" -m heal)
	git update-ref refs/heads/salve/heal-cheat "$commit"
	echo "{\"outcome\":\"healed\",\"branch\":\"salve/heal-cheat\",\"base_commit\":\"$base\",\"commits\":[{}]}" >"$res"
	exit 0 ;;
esac
exit 9
`

// TestScoresNewExpectations: a flaky verdict (exit 5, nothing committed)
// passes a flaky case whose command passes on its second run; a red heal
// passes a logic bug held to red; and a green heal that edited the test
// file is a false success, whatever the command says.
func TestScoresNewExpectations(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	salve := filepath.Join(dir, "salve")
	if err := os.WriteFile(salve, []byte(fakeSalve), 0o755); err != nil {
		t.Fatal(err)
	}
	mk := func(name, doc string, files map[string]string) Case {
		t.Helper()
		c := filepath.Join(dir, "corpus", name)
		for f, body := range files {
			p := filepath.Join(c, "tree", f)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(c, "case.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		cs, err := LoadCase(c)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	flaky := mk("flaky", `{"language":"sh","class":"flaky","expect":"flaky","command":"if [ -f .seen ]; then exit 0; fi; touch .seen; exit 1","defects":[]}`,
		map[string]string{".gitignore": ".seen\n", "README.md": "# x\n"})
	logic := mk("logic", `{"language":"go","class":"needs_llm","expect":"healed","without_llm":"red","command":"grep -q 'a + b' calc.go","defects":[{"file":"calc.go","line":3,"slip":"a - b"}]}`,
		map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n", "calc_test.go": "package calc\n"})
	cheat := mk("cheat", `{"language":"go","class":"needs_llm","expect":"healed","without_llm":"red","command":"true","defects":[{"file":"calc.go","line":3,"slip":"a - b"}]}`,
		map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n", "calc_test.go": "package calc\n"})
	for _, tc := range []struct {
		c                              Case
		mode                           string
		pass, falseSuccess, testEdited bool
	}{
		{flaky, "flaky", true, false, false},
		{flaky, "red", false, false, false},
		{logic, "red", true, false, false},
		{logic, "flaky", false, false, false},
		{cheat, "cheat", false, true, true},
	} {
		t.Run(tc.c.Name+"/"+tc.mode, func(t *testing.T) {
			env := append(os.Environ(), "FAKE_HEAL="+tc.mode)
			r, err := One(context.Background(), tc.c, Options{Salve: salve, GitAgent: "git_agent", Env: env, WorkDir: t.TempDir(), Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if r.Pass != tc.pass || r.FalseSuccess != tc.falseSuccess || r.TestEdited != tc.testEdited || !r.Untouched {
				t.Errorf("%+v: want pass %v, false success %v, test edited %v, untouched", r, tc.pass, tc.falseSuccess, tc.testEdited)
			}
		})
	}
}

// TestUserRepoBefore: a case with a before/ tree is two commits, the
// second replacing the first's files with tree/, so that HEAD's diff is
// the breaking change and nothing else (not the notes file scoring adds).
func TestUserRepoBefore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: this test needs it")
	}
	dir := t.TempDir()
	files := map[string]string{
		"before/a.go":     "package a\n\nfunc Old() {}\n",
		"before/gone.txt": "removed by the commit\n",
		"tree/a.go":       "package a\n\nfunc New() {}\n",
		"tree/sub/b.go":   "package sub\n",
	}
	for p, body := range files {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := Case{Name: "h", Dir: dir, Class: ClassHistory}
	if !c.HasBefore() {
		t.Fatal("HasBefore = false")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	ctx := context.Background()
	if err := userRepo(ctx, c, repo, os.Environ()); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		code, out, e := runCmd(ctx, repo, os.Environ(), time.Minute, "git", args...)
		if code != 0 {
			t.Fatalf("git %v: %s", args, e)
		}
		return out
	}
	if got := git("log", "--format=%s"); got != "work in progress\nthe last green commit\n" {
		t.Errorf("log = %q", got)
	}
	if got := git("show", "--format=", "--name-status", "HEAD"); got != "M\ta.go\nD\tgone.txt\nA\tsub/b.go\n" {
		t.Errorf("HEAD changes %q", got)
	}
	if got := git("status", "--porcelain"); !strings.Contains(got, " M NOTES.md") || !strings.Contains(got, "A  TODO.txt") {
		t.Errorf("the user's work in progress is missing: %q", got)
	}
}
