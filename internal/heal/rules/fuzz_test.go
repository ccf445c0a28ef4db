package rules

import (
	"context"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
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
	f.Add("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(strings.ToUpper(strconv.Itoa(1))) }\n", 5, "undefined: strings")
	f.Add("\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nimport os\n\nx = heapq.nsmallest(1, [])\n", 6, "NameError: name 'heapq' is not defined. Did you mean: 'help'?")
	f.Add("//! Doc.\n#![allow(dead_code)]\nuse std::io::{self,\n  Read};\nfn main() { let m: HashMap<i32, i32> = HashMap::new(); }\n", 5, "cannot find type `HashMap` in this scope")
	f.Add("use std::fs::File;\nfn main() { std::io::stdin().read_to_string(&mut s); }\n", 2, "no method named `read_to_string` found for struct `Stdin` in the current scope")
	f.Add("package a;\n\nimport static x.Y.z;\n\nimport com.a.B;\nclass A { List<B> x = null }\n", 6, "cannot find symbol")
	f.Add("import { a } from './a.js';\nparse(a);\n", 2, "ReferenceError: parse is not defined")
	f.Add("def f(x):\n    print x,  # x\n    print\n", 2, "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?")
	f.Add("def add(a, b);\n    return a\n", 1, "SyntaxError: expected ':'")
	f.Add("package p\n\nfunc f() { n = atomic.AddInt64(&n, 1) }\n", 3, "direct assignment to atomic value")
	f.Add("public class Old {\n}\n", 1, "class Old is public, should be declared in a file named Old.java")
	f.Add("#include \"Ring.h\"\nint main(void) { return 0; }\n", 1, "Ring.h: No such file or directory")
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

// FuzzImportPlacement runs the header scanners and the import placement
// of every language over arbitrary files: no panic, and the line added
// is in the result with every original line kept in order.
func FuzzImportPlacement(f *testing.F) {
	f.Add("\"\"\"Doc.\n\"\"\"\nfrom __future__ import annotations\n\nimport os\nfrom x import (\n  a,\n)\n\n__all__ = []\n")
	f.Add("package a;\n\nimport java.util.Map;\n\nimport com.x.Y;\n\nclass A {}\n")
	f.Add("//! Doc.\n#![deny(\n  unused\n)]\n\nuse std::io::{self, Read};\n\nuse crate::a;\nfn main() {}\n")
	f.Add("package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/x\"\n)\n")
	f.Add("export default function parse() {}\nexport { a as b, c as default };\nmodule.exports = { d, e: 1 };\n")
	f.Fuzz(func(t *testing.T, content string) {
		check := func(lang, add string, got lines) {
			j, found := 0, false
			orig := splitContent(content).l
			for _, l := range got.l {
				if j < len(orig) && l == orig[j] {
					j++
				} else if l == add {
					found = true
				}
			}
			if j != len(orig) || !found && !containsLine(got.l, add) {
				t.Fatalf("%s: the placement of %q loses lines or the import:\n%s", lang, add, got.String())
			}
		}
		ls := splitContent(content)
		insertPyImport(&ls, "import heapq", pySectStd, func(string) int { return pySectThird })
		check("python", "import heapq", ls)
		ls = splitContent(content)
		insertJavaImport(&ls, "import java.util.List;")
		check("java", "import java.util.List;", ls)
		ls = splitContent(content)
		insertRustUse(&ls, "use std::collections::HashMap;")
		check("rust", "use std::collections::HashMap;", ls)
		if out, ok := addGoImports(content, []string{"strings", "example.com/y"}); !ok && out != content {
			t.Fatal("go: a refused edit changed the file")
		}
		jsExportKind(content, "parse")
		rustUses(splitContent(content).l)
	})
}

func containsLine(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
