package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/report"
)

// fixedReports are three reports with known fixes: two lines replaced,
// one line inserted, one line deleted; and a fourth with a fix that is
// no line range.
func fixedReports() ([]contract.BugReport, map[int][]report.Fix) {
	reports := []contract.BugReport{
		{FilePath: "main.go", LineNumber: 7, ErrorType: contract.ErrTypeError, Message: "cannot use x (variable of type int) as string value", Tool: "go"},
		{FilePath: "main.go", LineNumber: 3, ErrorType: contract.ErrImport, Message: `undefined: strings`, Tool: "go"},
		{FilePath: "./util.go", LineNumber: 4, ErrorType: contract.ErrImport, Message: `"os" imported and not used`, Tool: "go"},
		{FilePath: "util.go", LineNumber: 9, ErrorType: contract.ErrSyntax, Message: "unexpected }", Tool: "go"},
		{FilePath: "util.go", LineNumber: 12, ErrorType: contract.ErrSyntax, Message: "no fix", Tool: "go"},
	}
	fixes := map[int][]report.Fix{
		0: {{StartLine: 7, EndLine: 8, Lines: []string{`	fmt.Println("hi", x)`, `	_ = "done"`}}},
		1: {{StartLine: 4, EndLine: 3, Lines: []string{`import "strings"`}}},
		2: {{StartLine: 4, EndLine: 4}},
		3: {{StartLine: 9, EndLine: 7, Lines: []string{"x"}}},
	}
	return reports, fixes
}

// TestRDJSONSuggestions pins the suggestions of rdjson and rdjsonl:
// whole-line ranges with no column for replacements and deletions, an
// empty range at column 1 for an insertion, and a warning for a fix that
// is no range.
func TestRDJSONSuggestions(t *testing.T) {
	reports, fixes := fixedReports()
	var warns []string
	var buf bytes.Buffer
	if err := report.Write(&buf, report.RDJSON, reports, report.Options{Fixes: fixes, Warn: func(m string) { warns = append(warns, m) }}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Diagnostics []struct {
			Suggestions []json.RawMessage `json:"suggestions"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{`{"range":{"start":{"line":7},"end":{"line":8}},"text":"\tfmt.Println(\"hi\", x)\n\t_ = \"done\""}`},
		{`{"range":{"start":{"line":4,"column":1},"end":{"line":4,"column":1}},"text":"import \"strings\"\n"}`},
		{`{"range":{"start":{"line":4},"end":{"line":4}},"text":""}`},
		nil,
		nil,
	}
	for i, d := range doc.Diagnostics {
		var got []string
		for _, s := range d.Suggestions {
			var c bytes.Buffer
			_ = json.Compact(&c, s)
			got = append(got, c.String())
		}
		if strings.Join(got, "\n") != strings.Join(want[i], "\n") {
			t.Errorf("diagnostic %d suggestions:\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(want[i], "\n"))
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "report 3") {
		t.Errorf("warnings %q", warns)
	}
	// Without fixes the output is what it always was.
	plain, _ := write(t, report.RDJSON, reports)
	if bytes.Contains(plain, []byte("suggestions")) {
		t.Error("suggestions without fixes")
	}
	buf.Reset()
	if err := report.Write(&buf, report.RDJSONL, reports, report.Options{Fixes: fixes}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"suggestions"`); n != 3 {
		t.Errorf("rdjsonl has %d diagnostics with suggestions, want 3:\n%s", n, buf.String())
	}
}

// TestReviewdogReadsSuggestions pipes rdjson and rdjsonl with suggestions
// into the real reviewdog (installed by scripts/report/setup.sh): it must
// accept them and read each suggestion's range and text back. Its local
// reporter prints each diagnostic as it parsed it, suggestions included.
// A malformed suggestion must be refused, so the check can fail.
func TestReviewdogReadsSuggestions(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "..", "..", ".deps", "bin", "reviewdog"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("reviewdog is not installed (run scripts/report/setup.sh): %v", err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	reviewdog := func(format string, in []byte) (string, error) {
		cmd := exec.CommandContext(ctx, bin, "-f="+format, "-reporter=local", "-filter-mode=nofilter")
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	squash := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s)
	}
	reports, fixes := fixedReports()
	for _, f := range []report.Format{report.RDJSON, report.RDJSONL} {
		var buf bytes.Buffer
		if err := report.Write(&buf, f, reports, report.Options{Fixes: fixes}); err != nil {
			t.Fatal(err)
		}
		out, err := reviewdog(string(f), buf.Bytes())
		if err != nil {
			t.Fatalf("%s: reviewdog refused salve's suggestions: %v\n%s", f, err, out)
		}
		// reviewdog prints rdjson diagnostics as it parsed them, in
		// protobuf's text form, and rdjsonl lines as it read them (so
		// there, that it parsed them shows in its exit status and in the
		// control below).
		wants := []string{
			`suggestions:{range:{start:{line:7}end:{line:8}}text:"\tfmt.Println(\"hi\",x)\n\t_=\"done\""}`,
			`suggestions:{range:{start:{line:4column:1}end:{line:4column:1}}text:"import\"strings\"\n"}`,
			`suggestions:{range:{start:{line:4}end:{line:4}}}`,
		}
		if f == report.RDJSONL {
			wants = []string{
				`"suggestions":[{"range":{"start":{"line":7},"end":{"line":8}},"text":"\tfmt.Println(\"hi\",x)\n\t_=\"done\""}]`,
				`"suggestions":[{"range":{"start":{"line":4,"column":1},"end":{"line":4,"column":1}},"text":"import\"strings\"\n"}]`,
				`"suggestions":[{"range":{"start":{"line":4},"end":{"line":4}},"text":""}]`,
			}
		}
		for _, want := range wants {
			if !strings.Contains(squash(out), squash(want)) {
				t.Errorf("%s: reviewdog did not read %s:\n%s", f, want, out)
			}
		}
		// The control: a suggestion with a misspelt field is refused.
		bad := bytes.Replace(buf.Bytes(), []byte(`"range"`), []byte(`"rang"`), 1)
		if out, err := reviewdog(string(f), bad); err == nil || !strings.Contains(out, "parse error") {
			t.Errorf("%s: reviewdog accepted a malformed suggestion (%v):\n%s", f, err, out)
		}
	}
}
