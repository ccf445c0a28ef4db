package suggest

import (
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/logparse"
)

// FuzzApply feeds the edit resolver spans a tool could print for a file
// that changed since (offsets past the end, inverted ranges, columns off
// the line, UTF-16 offsets inside a surrogate pair): it must never panic,
// and whatever it applies must keep the text outside the edit.
func FuzzApply(f *testing.F) {
	f.Add("fn main() {\n    let x = 3\n}\n", 2, 13, 2, 14, -1, -1, "", ";", false)
	f.Add("a😀b\n", 1, 1, 1, 1, 1, 3, "", "x", true)
	f.Add("x\n", 5, 1, 1, 1, 0, 99, "x", "y", false)
	f.Fuzz(func(t *testing.T, content string, line, col, endLine, endCol, start, end int, old, nw string, u16 bool) {
		e := logparse.Edit{File: "a", Line: line, Col: col, EndLine: endLine, EndCol: endCol, Start: start, End: end, UTF16: u16, Old: old, New: nw}
		s := logparse.Suggestion{File: "a", Line: line, Applicability: logparse.FixIt, Edits: []logparse.Edit{e}}
		out, _, _, err := apply(content, "a", []candidate{{s, 0.9}})
		if err == nil && nw == "" && len(out) > len(content) {
			t.Fatalf("an edit inserting nothing grew the file")
		}
	})
}

// FuzzFix runs the tier without re-runs on arbitrary files and messages:
// no panic, and a fix is always an answer of the contract.
func FuzzFix(f *testing.F) {
	f.Add("package main\n\nfunc main() {\n\tx := 1\n\tprintln(y)\n}\n", "main.go", 5, 10, "undefined: y")
	f.Add("print(totl)\n", "a.py", 1, 0, "NameError: name 'totl' is not defined. Did you mean: 'total'?")
	f.Add("int main(void) { return coutn; }\n", "m.c", 1, 25, "‘coutn’ undeclared; did you mean ‘count’?")
	f.Fuzz(func(t *testing.T, content, file string, line, col int, msg string) {
		if strings.ContainsAny(file, "/\\\x00") || file == "" || file == "." || file == ".." {
			return
		}
		ws := t.TempDir()
		in := heal.FixInput{Workspace: ws, Path: file, Content: content, Request: contract.FixRequest{BugReport: contract.BugReport{FilePath: file, LineNumber: line, Column: col, Message: msg}}}
		res, err := (&Fixer{}).Fix(context.Background(), in)
		if err == nil && (res.PatchedContent == content || res.ConfidenceScore <= 0 || res.ConfidenceScore > 1 || res.Fixer != Name) {
			t.Fatalf("bad result %+v", res)
		}
	})
}
