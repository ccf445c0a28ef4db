package logparse

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/lazyre"
)

// The readers test cheap shapes before their regular expressions. Each
// shortcut must turn down only lines the expression, or the slower test it
// replaced, turns down too; these tests hold them to that.

// markerExprs pairs each expression that wants a marker first on the
// line, after blanks, with that marker: the readers run the expression
// only when trimLeftRESpace(line) starts with the marker.
var markerExprs = []struct {
	re     *lazyre.Regexp
	marker string
}{
	{reJest, "● "}, {reAvaFail, "✘ [fail]: "}, {reNodeX, "✖ "}, {reTapNotOK, "not ok "},
	{reTraceHead, "Traceback ("}, {rePyFrame, `File "`},
}

// reGoLintTag is the expression goLintTagged replaces, from the same list.
var reGoLintTag = regexp.MustCompile(`\((?:[A-Z]{1,3}\d{3,5}|` + strings.Join(goLinters, "|") + `)\)$`)

// javaExcHeadBefore is javaExcHead as it was before its one-pass scan,
// with the test its caller made first.
func javaExcHeadBefore(s string) bool {
	if strings.IndexByte(s, '.') <= 0 {
		return false
	}
	s = javaExcStart(s)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return strings.IndexByte(s, '.') > 0 && !strings.ContainsAny(s, " \t/")
}

// checkShortcuts fails when a shortcut disagrees with what it stands for
// on line.
func checkShortcuts(t *testing.T, line string) {
	t.Helper()
	u := trimLeftRESpace(line)
	if want := strings.TrimLeft(line, "\t\n\f\r "); u != want {
		t.Fatalf("trimLeftRESpace(%q) = %q, want %q", line, u, want)
	}
	for _, e := range markerExprs {
		if e.re.MatchString(line) && !strings.HasPrefix(u, e.marker) {
			t.Fatalf("%s matches %q, which does not start with %q after blanks", e.re, line, e.marker)
		}
	}
	if got, want := assertish(line), reAssertish.MatchString(line); got != want {
		t.Fatalf("assertish(%q) = %v, the expression says %v", line, got, want)
	}
	if got, want := javaExcHead(line), javaExcHeadBefore(line); got != want {
		t.Fatalf("javaExcHead(%q) = %v, before %v", line, got, want)
	}
	if got, want := goLintTagged(line), reGoLintTag.MatchString(line); got != want {
		t.Fatalf("goLintTagged(%q) = %v, the expression says %v", line, got, want)
	}
	for _, affix := range []string{"", line, line[:len(line)/2], line[len(line)/2:], "● ", "[ RUN      ] ", ")"} {
		if got, want := hasPrefix(line, affix), strings.HasPrefix(line, affix); got != want {
			t.Fatalf("hasPrefix(%q, %q) = %v", line, affix, got)
		}
		if got, want := hasSuffix(line, affix), strings.HasSuffix(line, affix); got != want {
			t.Fatalf("hasSuffix(%q, %q) = %v", line, affix, got)
		}
	}
	f, rest := field(line)
	wf, wrest := trimIndent(line), ""
	if i := strings.IndexAny(wf, " \t"); i >= 0 {
		wf, wrest = wf[:i], wf[i:]
	}
	if f != wf || rest != wrest {
		t.Fatalf("field(%q) = %q, %q, want %q, %q", line, f, rest, wf, wrest)
	}
	lead := byte(0)
	if tr := strings.TrimSpace(line); tr != "" {
		lead = tr[0]
	}
	if got := trimmedLead(line); got != lead {
		t.Fatalf("trimmedLead(%q) = %q, strings.TrimSpace gives %q", line, got, lead)
	}
	if reEnterDir.MatchString(line) && !hasPrefix(line, "make") && !hasPrefix(line, "gmake") {
		t.Fatalf("reEnterDir matches %q, which starts with neither make nor gmake", line)
	}
	if reGradleAt.MatchString(line) && !gradleAtShape(line) {
		t.Fatalf("gradleAtShape turns down %q, which reGradleAt matches", line)
	}
	if reJsErr.MatchString(line) && !jsErrShape(line) {
		t.Fatalf("jsErrShape turns down %q, which reJsErr matches", line)
	}
	if got, want := namesGoFormatter(line), strings.Contains(line, "gofmt") || strings.Contains(line, "goimports"); got != want {
		t.Fatalf("namesGoFormatter(%q) = %v", line, got)
	}
}

// shortcutLines are lines each shortcut must get right: the markers at
// the start, after blanks, and elsewhere; Unicode case folding; class
// names with and without their prefixes.
var shortcutLines = []string{
	"", " ", "\t\n", "\u00a0would reformat a.py", "● suite › test", "  ● suite › test", "x ● y", "\f✘ [fail]: t",
	"✖ fails (2ms)", "\r not ok 1 - a", "ok 1 - not ok 2 - b", "Traceback (most recent call last):",
	`  File "a.py", line 3, in f`, `x File "a.py", line 3`, "got 1, want 2", "GOT 1", "ſhould", "K\u212Aelvin must",
	"diff: x", "no words here", "java.lang.IllegalStateException: boom", "Caused by: a.b.C: x", ".a.B: x",
	"Exception in thread \"main\" java.lang.Error: x", "  at a.b (c/d.java:1)", "a.b c: d", "a/b.C: x", "a.b\tc",
	"a.go:1:2: x (SA1000)", "a.go:1:2: x (errcheck) (y)", "(govet)", "x (unparam)", "x (AB12345)", "x (ABCD1234)", "x (A1234567)", "x (Z999)", "()", "(", "x (errcheck))", "x (ErrCheck)",
	"=== RUN   TestX", "--- FAIL:\tTestX (0.00s)", "\u00a0\u2003x", "\u00a0", "\xffx", "ggofmt", "go goimports",
	"TypeError: x", "        Uncaught ReferenceError: y", "         Error", "a.b.CError [E1]: z", "Error", "UncaughtError:", "Errors",
	"    org.opentest4j.AssertionFailedError at RouterTest.java:21", "\tjava.lang.Error at A.kt:3", "   at node:internal/x:1:2",
	"make[2]: Entering directory '/w/a'", "gmake: Leaving directory `/w'", "mmake: Entering directory '/w'",
}

func TestShortcutsAgree(t *testing.T) {
	for _, line := range shortcutLines {
		checkShortcuts(t, line)
	}
	// Every line of the corpus, too.
	for _, dir := range corpusCases(t) {
		data, err := os.ReadFile(filepath.Join(dir, "log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			checkShortcuts(t, cleanLine(line))
		}
	}
}

func FuzzShortcuts(f *testing.F) {
	for _, line := range shortcutLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) { checkShortcuts(t, line) })
}
