package heal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/undertest"
)

const (
	cartGo = "// Package cart prices carts.\npackage cart\n\n// Total sums the cart.\nfunc Total(xs []int) int {\n\tsum := 0\n\tfor _, x := range xs {\n\t\tsum += x\n\t}\n\treturn applyDiscount(sum)\n}\n"
	discGo = "package cart\n\n// applyDiscount takes 10% off from 100.\nfunc applyDiscount(c int) int {\n\tif c > 100 {\n\t\treturn c - c/10\n\t}\n\treturn c\n}\n\n// unrelated is far from every report.\nfunc unrelated() int {\n\treturn 1\n}\n"
	testGo = "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif got := Total([]int{100}); got != 90 {\n\t\tt.Errorf(\"Total = %d, want 90\", got)\n\t}\n}\n"
)

// TestGateEdits: a fix that spans files passes the gate only when every
// hunk of every file is reached from a report, and every integrity rule
// holds for every file; each refusal names the file and the rule.
func TestGateEdits(t *testing.T) {
	reports := []contract.BugReport{{FilePath: "cart_test.go", LineNumber: 7, ErrorType: contract.ErrLogic, Message: "Total = 100, want 90"}}
	reach := []Reached{
		{Path: "cart_test.go", Start: 4, End: 10, Why: "reported line 7 ±3"},
		{Path: "cart.go", Start: 5, End: 11, Why: "the code under test"},
		{Path: "disc.go", Start: 4, End: 9, Why: "the declaration of applyDiscount"},
	}
	file := func(p, orig, patched string) FileFix { return FileFix{Path: p, Original: orig, Patched: patched} }
	for _, tc := range []struct {
		name       string
		files      []FileFix
		confidence float64
		allowTests bool
		want       []string // rule ids; nil means accepted
		reasonHas  string
	}{
		{name: "the cause in a second file", files: []FileFix{file("disc.go", discGo, strings.Replace(discGo, "c > 100", "c >= 100", 1))}, confidence: 0.9},
		{name: "two files, both reached", confidence: 0.9, files: []FileFix{
			file("disc.go", discGo, strings.Replace(discGo, "c > 100", "c >= 100", 1)),
			file("cart.go", cartGo, strings.Replace(cartGo, "sum += x", "sum = sum + x", 1))}},
		{name: "an unchanged file is left out", confidence: 0.9, files: []FileFix{
			file("cart.go", cartGo, cartGo), file("disc.go", discGo, strings.Replace(discGo, "c > 100", "c >= 100", 1))}},
		{name: "a function no report reaches", files: []FileFix{file("disc.go", discGo, strings.Replace(discGo, "return 1", "return 2", 1))}, confidence: 0.9,
			want: []string{RuleOutsideWindow}, reasonHas: "disc.go: diff touches lines"},
		{name: "a file no report reaches", files: []FileFix{file("other.go", "package cart\n\nvar x = 1\n", "package cart\n\nvar x = 2\n")}, confidence: 0.9,
			want: []string{RuleOutsideWindow}, reasonHas: "other.go"},
		{name: "the test", files: []FileFix{file("cart_test.go", testGo, strings.Replace(testGo, "90", "100", 2))}, confidence: 0.9,
			want: []string{"test-file"}, reasonHas: "cart_test.go"},
		{name: "the test, edits allowed", files: []FileFix{file("cart_test.go", testGo, strings.Replace(testGo, "90", "100", 2))}, confidence: 0.9, allowTests: true,
			want: []string{"expected-value-changed"}},
		{name: "a fix and a cheat: the whole fix is refused", confidence: 0.9, files: []FileFix{
			file("disc.go", discGo, strings.Replace(discGo, "c > 100", "c >= 100", 1)),
			file("cart_test.go", testGo, strings.Replace(testGo, "\t\tt.Errorf(\"Total = %d, want 90\", got)\n", "", 1))},
			want: []string{"test-file"}},
		{name: "a comment removed", files: []FileFix{file("disc.go", discGo, strings.Replace(discGo, "// applyDiscount takes 10% off from 100.\n", "", 1))}, confidence: 0.9,
			want: []string{RuleCommentsRemoved}},
		{name: "an import line outside the reach", confidence: 0.9, files: []FileFix{
			file("disc.go", discGo, strings.Replace(strings.Replace(discGo, "package cart\n", "package cart\n\nimport \"math\"\n", 1), "c > 100", "c >= int(math.Round(100))", 1))}},
		{name: "nothing changed", files: []FileFix{file("disc.go", discGo, discGo)}, confidence: 0.9, want: []string{RuleNoChange}},
		{name: "low confidence", files: []FileFix{file("disc.go", discGo, strings.Replace(discGo, "c > 100", "c >= 100", 1))}, confidence: 0.2,
			want: []string{RuleLowConfidence}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := GateEdits(EditsInput{Files: tc.files, Reach: reach, Reports: reports, Confidence: tc.confidence, MinConfidence: DefaultMinConfidence,
				AllowTestEdits: tc.allowTests, Fixer: "agent"})
			if tc.want == nil {
				if !d.Accepted || len(d.Files) == 0 || d.Diff == "" {
					t.Fatalf("refused: %s", d.Reason())
				}
				for _, f := range d.Files {
					if f.Original == f.Patched || !strings.Contains(d.Diff, "+++ b/"+f.Path) {
						t.Errorf("file %s in the decision: diff %q", f.Path, d.Diff)
					}
				}
				return
			}
			if d.Accepted {
				t.Fatalf("accepted %q", d.Diff)
			}
			for _, r := range tc.want {
				if !slices.Contains(d.Rules, r) {
					t.Errorf("rules %v, want %s (%s)", d.Rules, r, d.Reason())
				}
			}
			if !strings.Contains(d.Reason(), tc.reasonHas) {
				t.Errorf("reason %q lacks %q", d.Reason(), tc.reasonHas)
			}
		})
	}
	many := make([]FileFix, MaxEditFiles+1)
	for i := range many {
		many[i] = file("f"+string(rune('a'+i))+".go", "package cart\n", "package cart\n\nimport \"os\"\n")
	}
	if d := GateEdits(EditsInput{Files: many, Confidence: 1}); d.Accepted || !slices.Contains(d.Rules, RuleTooManyFiles) {
		t.Errorf("%d files: %v", len(many), d.Rules)
	}
}

// TestCheckEditPath: a path an investigator names must stay in the
// workspace, reach no .git folder, go through no symlink and name a
// regular file.
func TestCheckEditPath(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	for p, c := range map[string]string{"a.go": "package a\n", "sub/b.go": "package sub\n", ".git/config": "[core]\n", "sub/.git/HEAD": "x"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"out.go": filepath.Join(outside, "secret.go"), "in.go": filepath.Join(ws, "a.go"), "dir": outside, "alias": filepath.Join(ws, "sub")} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path string
		want string // the clean path, "" when refused
	}{
		{"a.go", "a.go"}, {"sub/b.go", "sub/b.go"}, {"./sub/../a.go", "a.go"}, {`sub\b.go`, "sub/b.go"},
		{".git/config", ""}, {"sub/.git/HEAD", ""}, {"../a.go", ""}, {"/etc/passwd", ""},
		{"out.go", ""}, {"in.go", ""}, {"dir/secret.go", ""}, {"alias/b.go", ""}, {"sub", ""}, {"missing.go", ""},
	} {
		got, abs, err := checkEditPath(ws, tc.path)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: accepted as %s", tc.path, got)
			}
			continue
		}
		if err != nil || got != tc.want || abs != filepath.Join(ws, tc.want) {
			t.Errorf("%s: %q, %q, %v; want %s", tc.path, got, abs, err, tc.want)
		}
	}
}

// reachTargets is a TargetFinder and DeclFinder of fixed answers that
// records the names it was asked for.
type reachTargets struct {
	regions []undertest.Region
	decls   map[string]undertest.Region
	asked   []string
}

func (f *reachTargets) Regions(context.Context, string, contract.BugReport) ([]undertest.Region, error) {
	return f.regions, nil
}

func (f *reachTargets) TestSource(context.Context, string, contract.BugReport) (string, error) {
	return "", errors.New("none")
}

func (f *reachTargets) Declarations(_ context.Context, _, _ string, names []string) ([]undertest.Region, error) {
	var out []undertest.Region
	for _, n := range names {
		f.asked = append(f.asked, n)
		if r, ok := f.decls[n]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// TestComputeReach: the reach of a failing test holds its line ±3, the
// code under test in every file the resolver names, and the declarations
// of the names that code uses; comments are not read for names.
func TestComputeReach(t *testing.T) {
	ws := t.TempDir()
	for p, c := range map[string]string{"cart.go": strings.Replace(cartGo, "\tsum := 0\n", "\tsum := 0 // Fake() is not called\n", 1), "disc.go": discGo, "cart_test.go": testGo} {
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ft := &reachTargets{regions: []undertest.Region{{Path: "cart.go", Start: 5, End: 11, Symbol: "cart.Total", Why: "called by TestTotal"}},
		decls: map[string]undertest.Region{"applyDiscount": {Path: "disc.go", Start: 4, End: 9, Symbol: "applyDiscount"}, "Fake": {Path: "disc.go", Start: 12, End: 14, Symbol: "Fake"}}}
	group := []contract.BugReport{{FilePath: "cart_test.go", LineNumber: 7, ErrorType: contract.ErrLogic}}
	reach := computeReach(context.Background(), ws, ft, FixInput{Path: "cart.go"}, group)
	var got []string
	for _, r := range reach {
		got = append(got, r.String())
	}
	want := []string{
		"cart_test.go:4-10 (reported line 7 ±3)",
		"cart.go:5-11 (the code under test: cart.Total (called by TestTotal))",
		"disc.go:4-9 (the declaration of applyDiscount, used where the error is)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("reach:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Contains(ft.asked, "applyDiscount") || slices.Contains(ft.asked, "Fake") {
		t.Errorf("names asked for: %v", ft.asked)
	}
	if got := reachIn(reach, "disc.go"); len(got) != 1 || got[0] != (LineRange{Start: 4, End: 9}) {
		t.Errorf("reachIn(disc.go) = %v", got)
	}
}

// TestWriteMovesTheTimeOn: an edit of the same size written within the
// second of the file's last change still gets a later second, so a
// toolchain that caches by time and size (Python's bytecode) compiles it
// again; trials write a file several times a second.
func TestWriteMovesTheTimeOn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stats.py")
	if err := os.WriteFile(p, []byte("x = a / b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	before := st.ModTime()
	for i, content := range []string{"x = a * b\n", "x = a / b\n", "x = a - b\n"} {
		if err := writeFileKeepMode(p, content); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(p)
		if st.ModTime().Unix() <= before.Unix() || st.Mode().Perm() != 0o600 {
			t.Errorf("write %d: mtime %v after %v, mode %v", i, st.ModTime(), before, st.Mode())
		}
		before = st.ModTime()
	}
}
