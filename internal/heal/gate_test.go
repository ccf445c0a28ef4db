package heal

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
)

func TestGate(t *testing.T) {
	src := "package main\n\nimport \"fmt\"\n\n// greet says hello.\nfunc greet() {\n\tfmt.Println(\"hi\") // say it\n}\n\nfunc a() {}\n\nfunc b() {}\n\nfunc c() {}\n"
	at := func(n int) []contract.BugReport {
		return []contract.BugReport{{FilePath: "main.go", LineNumber: n, ErrorType: contract.ErrSyntax, Message: "m"}}
	}
	for _, tc := range []struct {
		name    string
		patched string
		reports []contract.BugReport
		conf    float64
		want    string // "" means accepted
	}{
		{"in window", strings.Replace(src, `"hi"`, `"hello"`, 1), at(7), 0.9, ""},
		{"window edge +3", strings.Replace(src, "func a() {}", "func a() { }", 1), at(7), 0.9, ""},
		{"outside window", strings.Replace(src, "func c() {}", "func c() { return }", 1), at(7), 0.9, "outside the reported lines ±3"},
		{"no change", src, at(7), 0.9, "changes nothing"},
		{"low confidence", strings.Replace(src, `"hi"`, `"hello"`, 1), at(7), 0.69, "confidence 0.69 is below"},
		{"comment removed", strings.Replace(src, " // say it", "", 1), at(7), 0.9, `comments removed: ["// say it"]`},
		{"doc comment removed", strings.Replace(src, "// greet says hello.\n", "", 1), at(6), 0.9, "comments removed"},
		{"comment moved is kept", strings.Replace(src, "\tfmt.Println(\"hi\") // say it\n", "\t// say it\n\tfmt.Println(\"hi\")\n", 1), at(7), 0.9, ""},
		{"import far away", strings.Replace(strings.Replace(src, `import "fmt"`, "import (\n\t\"fmt\"\n\t\"os\"\n)", 1), "func c() {}", "func c() { _ = os.Getpid() }", 1), at(14), 0.9, ""},
		{"non-import far away", strings.Replace(strings.Replace(src, `import "fmt"`, "var x = 1", 1), "func c() {}", "func c() { }", 1), at(14), 0.9, "lines 3-3"},
		{"comment-like text in a string", strings.Replace(src, `"hi"`, `"// not a comment"`, 1), at(7), 0.9, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Gate(GateInput{Path: "main.go", Original: src, Patched: tc.patched, Reports: tc.reports, Confidence: tc.conf, MinConfidence: 0.7})
			if tc.want == "" && !d.Accepted {
				t.Fatalf("rejected: %s\n%s", d.Reason(), d.Diff)
			}
			if tc.want != "" && (d.Accepted || !strings.Contains(d.Reason(), tc.want)) {
				t.Fatalf("accepted=%v reason %q, want a rejection containing %q", d.Accepted, d.Reason(), tc.want)
			}
		})
	}
}

// TestGateCommentsEveryLanguage checks that the comments rule covers the
// extensions the gate once missed (.mts, .cts, .php).
func TestGateCommentsEveryLanguage(t *testing.T) {
	for _, tc := range []struct{ path, src, comment string }{
		{"web/a.mts", "// keep\nconst a = 1;\n", "// keep\n"},
		{"web/a.cts", "const a = 1; /* keep */\n", " /* keep */"},
		{"src/a.php", "<?php\n# keep\n$a = 1;\n", "# keep\n"},
		{"pkg/a.py", "x = '#not' # real\n", " # real"},
	} {
		d := Gate(GateInput{Path: tc.path, Original: tc.src, Patched: strings.Replace(tc.src, tc.comment, "", 1), Reports: []contract.BugReport{{LineNumber: 1}}, Confidence: 1})
		if d.Accepted || !slices.Contains(d.Rules, RuleCommentsRemoved) {
			t.Errorf("%s: removing a comment gave rules %q", tc.path, d.Rules)
		}
	}
}

// TestGateRules checks the rule ids each rejection names, the integrity
// rules through the gate, and the extra windows.
func TestGateRules(t *testing.T) {
	const test = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tgot := Add(1, 2)\n\tif got != 3 {\n\t\tt.Errorf(\"got %d, want 3\", got)\n\t}\n}\n"
	const src = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n"
	at := func(n int) []contract.BugReport {
		return []contract.BugReport{{FilePath: "calc/calc_test.go", LineNumber: n, ErrorType: contract.ErrLogic, Message: "calc_test.go:8: got -1, want 3"}}
	}
	for _, tc := range []struct {
		name, path, orig, patched string
		reports                   []contract.BugReport
		allow                     bool
		windows                   []LineRange
		conf                      float64
		want                      []string
	}{
		{name: "source fix", path: "calc/calc.go", orig: src, patched: strings.Replace(src, "return a - b", "return a + b", 1), reports: at(4), conf: 0.9},
		{name: "test file closed", path: "calc/calc_test.go", orig: test, patched: strings.Replace(test, "got := Add(1, 2)", "got := Add(2, 1)", 1), reports: at(8), conf: 0.9, want: []string{"test-file", "expected-value-changed"}},
		{name: "assertion removed", path: "calc/calc_test.go", allow: true, orig: test, patched: strings.Replace(test, "\tif got != 3 {\n\t\tt.Errorf(\"got %d, want 3\", got)\n\t}\n", "", 1), reports: at(8), conf: 0.9, want: []string{"assertion-removed"}},
		{name: "expected value changed", path: "calc/calc_test.go", allow: true, orig: test, patched: strings.Replace(test, "if got != 3 {", "if got != -1 {", 1), reports: at(8), conf: 0.9, want: []string{"expected-value-changed"}},
		{name: "guard loosened", path: "calc/calc_test.go", allow: true, orig: test, patched: strings.Replace(test, "if got != 3 {", "if got == 3 {", 1), reports: at(8), conf: 0.9, want: []string{"assertion-loosened"}},
		{name: "skip added", path: "calc/calc_test.go", allow: true, orig: test, patched: strings.Replace(test, "\tgot :=", "\tt.Skip()\n\tgot :=", 1), reports: at(8), conf: 0.9, want: []string{"test-skipped"}},
		{name: "test renamed away", path: "calc/calc_test.go", allow: true, orig: test, patched: strings.Replace(test, "func TestAdd(", "func testAdd(", 1), reports: at(5), conf: 0.9, want: []string{"test-removed"}},
		{name: "suppression added", path: "calc/calc.go", orig: src, patched: strings.Replace(src, "return a - b\n}\n\nfunc Sub", "return a - b //nolint\n}\n\nfunc Sub", 1), reports: at(4), conf: 0.9, want: []string{"suppression-added"}},
		{name: "ci config", path: ".github/workflows/ci.yml", orig: "run: go test\n", patched: "run: true\n", reports: at(1), allow: true, conf: 0.9, want: []string{"ci-config"}},
		{name: "outside window", path: "calc/calc.go", orig: src, patched: strings.Replace(src, "a * b", "a * b * 1", 1), reports: at(4), conf: 0.9, want: []string{"outside-window"}},
		{name: "extra window", path: "calc/calc.go", orig: src, patched: strings.Replace(src, "a * b", "a * b * 1", 1), reports: at(4), windows: []LineRange{{11, 13}}, conf: 0.9},
		{name: "window that misses", path: "calc/calc.go", orig: src, patched: strings.Replace(src, "a * b", "a * b * 1", 1), reports: at(4), windows: []LineRange{{1, 3}, {13, 11}}, conf: 0.9, want: []string{"outside-window"}},
		{name: "several rules", path: "calc/calc.go", orig: src, patched: strings.Replace(src, "a * b", "a * b //nolint", 1), reports: at(4), conf: 0.5, want: []string{"low-confidence", "outside-window", "suppression-added"}},
		{name: "no change", path: "calc/calc.go", orig: src, patched: src, reports: at(4), conf: 0.9, want: []string{"no-change"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Gate(GateInput{Path: tc.path, Original: tc.orig, Patched: tc.patched, Reports: tc.reports, Confidence: tc.conf, MinConfidence: 0.7, AllowTestEdits: tc.allow, Windows: tc.windows})
			if !slices.Equal(d.Rules, tc.want) || d.Accepted != (len(tc.want) == 0) {
				t.Fatalf("accepted=%v rules %q, want %q\n%s", d.Accepted, d.Rules, tc.want, d.Reason())
			}
			for _, r := range d.Reasons {
				if !slices.ContainsFunc(d.Rules, func(id string) bool { return strings.HasPrefix(r, id+": ") }) {
					t.Errorf("reason %q does not start with its rule id", r)
				}
			}
		})
	}
}

func TestFormatFixLine(t *testing.T) {
	b := contract.BugReport{FilePath: "src/app.py", LineNumber: 12, ErrorType: contract.ErrIndentation}
	got := results.FormatFixLine(b, "replace the tab\nwith spaces")
	want := "INDENTATION error in src/app.py line 12 → Fix: replace the tab with spaces"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMapLine(t *testing.T) {
	hunks := LineDiff("a\nb\nc\nd\ne\n", "a\nX\nY\nc\ne\n")
	for _, tc := range []struct{ in, lo, hi int }{{1, 1, 1}, {2, 2, 3}, {3, 4, 4}, {4, 5, 5}, {5, 5, 5}} {
		if lo, hi := mapLine(hunks, tc.in); lo != tc.lo || hi != tc.hi {
			t.Errorf("mapLine(%d) = %d,%d want %d,%d (hunks %+v)", tc.in, lo, hi, tc.lo, tc.hi, hunks)
		}
	}
}

// applyForTest rebuilds the new text from a and the hunks.
func applyForTest(a string, hunks []Hunk) []string {
	src := splitLines(a)
	var out []string
	next := 1
	for _, h := range hunks {
		out = append(out, src[next-1:h.OldStart-1]...)
		out = append(out, h.New...)
		next = h.OldStart + len(h.Old)
	}
	return append(out, src[next-1:]...)
}

func FuzzLineDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x\n")
	f.Add("same\n", "same\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		hunks := LineDiff(a, b)
		got := strings.Join(applyForTest(a, hunks), "\n")
		want := strings.Join(splitLines(b), "\n")
		if got != want {
			t.Fatalf("applying the diff of %q → %q gives %q", a, b, got)
		}
		_ = Gate(GateInput{Path: "x.go", Original: a, Patched: b, Reports: []contract.BugReport{{LineNumber: 1}}, Confidence: 1})
	})
}

// TestParseWorktreeList reads the porcelain listing as git 2.3x writes it:
// the commit of each entry is kept only when it names one.
func TestParseWorktreeList(t *testing.T) {
	sha1 := strings.Repeat("ab", 20)
	sha256 := strings.Repeat("c1", 32)
	tests := []struct {
		name string
		out  string
		want []Worktree
	}{
		{"main and a locked heal worktree",
			"worktree /r\nHEAD " + sha1 + "\nbranch refs/heads/main\n\nworktree /t\nHEAD " + sha1 + "\ndetached\nlocked salve heal\n",
			[]Worktree{{Path: "/r", Branch: "main", Head: sha1}, {Path: "/t", Head: sha1, Locked: "salve heal"}}},
		{"a SHA-256 repository", "worktree /r\nHEAD " + sha256 + "\nbranch refs/heads/main\n", []Worktree{{Path: "/r", Branch: "main", Head: sha256}}},
		{"no commit yet: the null hash", "worktree /r\nHEAD " + strings.Repeat("0", 40) + "\nbranch refs/heads/main\n", []Worktree{{Path: "/r", Branch: "main"}}},
		{"bare", "worktree /r.git\nbare\n", []Worktree{{Path: "/r.git"}}},
		{"not a hash", "worktree /r\nHEAD ABCD" + strings.Repeat("0", 36) + "\n\nworktree /s\nHEAD abc\n", []Worktree{{Path: "/r"}, {Path: "/s"}}},
		{"locked without a reason", "worktree /r\nHEAD " + sha1 + "\nlocked\n", []Worktree{{Path: "/r", Head: sha1, Locked: "locked"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseWorktreeList(tc.out); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzParseWorktreeList(f *testing.F) {
	f.Add("worktree /r\nHEAD abc\nbranch refs/heads/main\n\nworktree /t\nHEAD def\nbranch refs/heads/salve/heal-1\nlocked salve heal pid=5 branch=salve/heal-1\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range ParseWorktreeList(s) {
			if w.Path == "" {
				t.Fatal("worktree without a path")
			}
			parseLockReason(w.Locked)
		}
	})
}

// TestPatchApplies checks that git apply accepts Patch's output and that
// it reproduces the new file.
func TestPatchApplies(t *testing.T) {
	base := "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\nl12\nl13\nl14\nl15\n"
	for _, tc := range []struct{ name, b string }{
		{"one line", strings.Replace(base, "l8\n", "L8\n", 1)},
		{"insert at top", "l0\n" + base},
		{"append", base + "l16\n"},
		{"delete first", strings.TrimPrefix(base, "l1\n")},
		{"two groups", strings.Replace(strings.Replace(base, "l2\n", "L2\n", 1), "l14\n", "", 1)},
		{"merged group", strings.Replace(strings.Replace(base, "l5\n", "L5\n", 1), "l9\n", "l9\nnew\n", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			git(t, dir, "init", "-q")
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			p := Patch("f.txt", base, tc.b)
			if err := os.WriteFile(filepath.Join(dir, "p.diff"), []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
			git(t, dir, "apply", "p.diff")
			got, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
			if string(got) != tc.b {
				t.Errorf("applied:\n%s\nwant:\n%s\npatch:\n%s", got, tc.b, p)
			}
		})
	}
}
