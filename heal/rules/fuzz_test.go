package rules

import (
	"context"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/heal"
)

// FuzzRules runs every built-in rule (external fixers off) over arbitrary
// sources and messages, for each language the table knows: no panic, and
// a fix is always a changed file with a confidence in (0, 1].
func FuzzRules(f *testing.F) {
	f.Add("def f():\n    x = 1\n\treturn x\n", 3, "TabError: inconsistent use of tabs and spaces in indentation")
	f.Add("import os, sys\nprint(sys)\n", 1, "F401 'os' imported but unused")
	f.Add("import { a, b } from './x';\nconsole.log(a);\n", 1, "'b' is declared but its value is never read.")
	f.Add("public class A {\n  List<String> x = new ArrayList<>();\n}\n", 2, "cannot find symbol")
	f.Add("fn main() {\n    let x = 3\n}\n", 2, "expected `;`, found `}`")
	f.Add("const x = fs.readFileSync('a');\n", 1, "ReferenceError: fs is not defined")
	f.Add("int main(void) {\n  int n = 0;\n}\n", 2, "unused variable ‘n’")
	f.Fuzz(func(t *testing.T, content string, line int, msg string) {
		ws := t.TempDir()
		for _, file := range []string{"a.py", "a.js", "a.ts", "A.java", "a.rs", "a.c", "a.go"} {
			in := heal.FixInput{Workspace: ws, Path: file, Content: content,
				Request: contract.FixRequest{BugReport: contract.BugReport{FilePath: file, LineNumber: line, Message: msg}}}
			res, err := (&Fixer{External: []External{}}).Fix(context.Background(), in)
			if err == nil && (res.PatchedContent == content || res.ConfidenceScore <= 0 || res.ConfidenceScore > 1) {
				t.Fatalf("%s: bad result %+v", file, res)
			}
		}
	})
}
