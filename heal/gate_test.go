package heal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{"import far away", strings.Replace(strings.Replace(src, `import "fmt"`, "import (\n\t\"fmt\"\n\t\"os\"\n)", 1), "func c() {}", "func c() { os.Exit(1) }", 1), at(14), 0.9, ""},
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

func TestCommentsPython(t *testing.T) {
	got := comments("py", "x = '#not' # real\ny = \"a#b\"\n# top\n")
	if strings.Join(got, "|") != "# real|# top" {
		t.Errorf("comments = %q", got)
	}
}

func TestFormatFixLine(t *testing.T) {
	b := contract.BugReport{FilePath: "src/app.py", LineNumber: 12, ErrorType: contract.ErrIndentation}
	got := FormatFixLine(b, "replace the tab\nwith spaces")
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
