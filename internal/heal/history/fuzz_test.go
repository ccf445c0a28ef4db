package history

import (
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
)

// FuzzParseDiff feeds the parser arbitrary text: no panic, and what it
// returns holds its bounds and matches the hunk headers.
func FuzzParseDiff(f *testing.F) {
	for _, d := range []string{goRenameDiff, goArityDiff, cRenameDiff, pyArityDiff, tsArityDiff, "--- a/x\n+++ b/x\n@@ -1,0 +1 @@\n+a\n", "@@ -1 +1 @@\n", "diff --git\n--- \"a/\\\"\n"} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, d string) {
		files, err := ParseDiff(d)
		if err != nil {
			return
		}
		if len(files) > MaxFiles {
			t.Fatalf("%d files", len(files))
		}
		for _, file := range files {
			for _, p := range []string{file.OldPath, file.NewPath} {
				if p != "" && diffPath(p, "") != p {
					t.Fatalf("unclean path %q", p)
				}
			}
			for _, h := range file.Hunks {
				var old, nw int
				for _, l := range h.Lines {
					if len(l.Text) > MaxLineBytes {
						t.Fatalf("line of %d bytes", len(l.Text))
					}
					switch l.Op {
					case Context:
						old++
						nw++
					case Removed:
						old++
					case Added:
						nw++
					default:
						t.Fatalf("op %q", l.Op)
					}
				}
				if old != h.OldLines || nw != h.NewLines {
					t.Fatalf("hunk %+v has %d old and %d new lines", h, old, nw)
				}
			}
			// Whatever parses, the analysis takes.
			Analyze(files, "a.go")
		}
	})
}

// FuzzPlan runs the analysis and the transformation on arbitrary diffs,
// files and messages: no panic, and a fix changes the file, keeps every
// line but those near the reported ones, and is a contract answer.
func FuzzPlan(f *testing.F) {
	f.Add(goArityDiff, "package main\n\nfunc run() {\n\tdb, err := store.Open(dir)\n}\n", "x.go", 4, "not enough arguments in call to Open")
	f.Add(goRenameDiff, "package main\n\nvar a = ParseConfig\n", "x.go", 3, "undefined: ParseConfig")
	f.Add(cRenameDiff, "int f(void) { return BUF_SIZE; }\n", "a.c", 1, "‘BUF_SIZE’ undeclared")
	f.Add(pyArityDiff, "connect(\n  'h'\n)\n", "a.py", 2, "TypeError: connect() missing 1 required positional argument: 'timeout'")
	f.Add(tsArityDiff, "clamp(a, clamp(b, 0), 0)\n", "a.ts", 1, "Expected 3 arguments, but got 2.")
	f.Fuzz(func(t *testing.T, diff, content, path string, line int, msg string) {
		files, err := ParseDiff(diff)
		if err != nil {
			return
		}
		in := heal.FixInput{Path: path, Content: content, Request: contract.FixRequest{BugReport: contract.BugReport{FilePath: path, LineNumber: line, Message: msg}}}
		res, err := Plan(in, Analyze(files, path))
		if err != nil {
			return
		}
		if res.PatchedContent == content || res.ConfidenceScore != Confidence || res.Fixer != Name {
			t.Fatalf("bad result %+v", res)
		}
		// Only the reported line, or a call spanning it, changes.
		ln, ok := lineSpan(content, line)
		if !ok {
			t.Fatalf("a fix for line %d, past the end", line)
		}
		pre := 0
		for pre < len(content) && pre < len(res.PatchedContent) && content[pre] == res.PatchedContent[pre] {
			pre++
		}
		suf := 0
		for suf < len(content)-pre && suf < len(res.PatchedContent)-pre && content[len(content)-1-suf] == res.PatchedContent[len(res.PatchedContent)-1-suf] {
			suf++
		}
		if pre < ln.start-maxCallBytes || len(content)-suf > ln.end+maxCallBytes {
			t.Fatalf("bytes %d to %d changed, line %d is bytes %d to %d", pre, len(content)-suf, line, ln.start, ln.end)
		}
	})
}
