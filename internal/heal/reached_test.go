package heal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestFixInFunctionReachedFromTheCodeUnderTest: TestParse calls Parse, and
// the slip is in parseNote, two calls further down (what a real repository
// showed: a correct fix there was refused as outside the code under test).
// The window now holds the functions the code under test reaches in its
// package, so the fix passes the gate; a change to a function nothing the
// test reaches still does not; the request shows parseNote.
func TestFixInFunctionReachedFromTheCodeUnderTest(t *testing.T) {
	const src = `// Package notes reads notes from comments.
package notes

import "strings"

// Parse returns the names of the notes of text.
func Parse(text string) []string {
	return parseComment(strings.Fields(text))
}

func parseComment(words []string) []string {
	var out []string
	for _, w := range words {
		out = append(out, parseNote(w))
	}
	return out
}

func parseNote(w string) string {
	return strings.ToUpper(w)
}

// Format joins names.
func Format(names []string) string {
	return strings.Join(names, ",")
}
`
	const test = `package notes

import "testing"

func TestParse(t *testing.T) {
	if got := Parse("a b"); len(got) != 2 || got[0] != "a" {
		t.Errorf("Parse = %v", got)
	}
}
`
	ws := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module example.com/notes\n\ngo 1.22\n", "notes.go": src, "notes_test.go": test} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	name := "TestParse"
	bug := contract.BugReport{FilePath: "notes_test.go", LineNumber: 7, ErrorType: contract.ErrLogic, Message: "notes_test.go:7: Parse = [A B]", TestName: &name}
	in, _, err := PrepareFix(context.Background(), FixPlan{Workspace: ws, Group: []contract.BugReport{bug}, Targets: fakeTargets{}})
	if err != nil {
		t.Fatal(err)
	}
	if in.Path != "notes.go" || !in.OnlyWindows {
		t.Fatalf("the fix goes to %s (only windows %v), want notes.go", in.Path, in.OnlyWindows)
	}
	if !strings.Contains(in.Request.FileSnippet, "return strings.ToUpper(w)") {
		t.Errorf("the request does not show parseNote:\n%s", in.Request.FileSnippet)
	}
	for _, tc := range []struct {
		name, from, to string
		accepted       bool
	}{
		{"the slip, two calls down", "return strings.ToUpper(w)", "return w", true},
		{"code the test does not reach", `return strings.Join(names, ",")`, `return strings.Join(names, ";")`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patched := strings.Replace(src, tc.from, tc.to, 1)
			d := GateFix(in, contract.FixResult{PatchedContent: patched, ConfidenceScore: 0.9, FixReason: "x"}, 0.5, false, nil)
			if d.Accepted != tc.accepted {
				t.Errorf("accepted %v, want %v: %s", d.Accepted, tc.accepted, d.Reason())
			}
			if !tc.accepted && !strings.Contains(d.Reason(), RuleOutsideWindow) && !strings.Contains(d.Reason(), "outside the code under test") {
				t.Errorf("refused for %q, want outside the window", d.Reason())
			}
		})
	}
}
