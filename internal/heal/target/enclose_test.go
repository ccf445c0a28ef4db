package target

import (
	"testing"

	"github.com/salve-dev/salve/internal/lang"
)

// TestEncloseBracesLiterals: braces inside raw strings, interpolations
// and nested comments do not open or close the function around a line;
// each file is lexed as its own language.
func TestEncloseBracesLiterals(t *testing.T) {
	for _, tc := range []struct {
		path   string
		family *lang.Language
		src    string
		line   int
		want   span
	}{
		{"src/lib.rs", rustLex, "fn outer() {\n    let s = r#\"say \"}\" twice\"#;\n    inner();\n}\n", 3, span{start: 1, end: 4, name: "outer"}},
		{"src/lib.rs", rustLex, "fn outer() {\n    /* /* */ { */\n    inner();\n}\nfn next() {}\n", 3, span{start: 1, end: 4, name: "outer"}},
		{"src/a.js", jsLex, "function outer() {\n  const s = `${`}`}`;\n  return s;\n}\n", 3, span{start: 1, end: 4, name: "outer"}},
		{"src/A.kt", javaLex, "fun outer() {\n    val s = \"${m[\"}\"]}\"\n    inner()\n}\n", 3, span{start: 1, end: 4, name: "outer"}},
		{"src/a.cpp", cLex, "int outer() {\n  auto s = R\"x(})x\";\n  return inner();\n}\n", 3, span{start: 1, end: 4, name: "outer"}},
		{"src/a.m", cLex, "int outer() {\n  char *s = \"}\"; // }\n  return inner();\n}\n", 3, span{start: 1, end: 4, name: "outer"}},
	} {
		got, ok := encloseBraces(tc.src, lexOf(tc.path, tc.family), tc.line, "")
		if !ok || got != tc.want {
			t.Errorf("%s: encloseBraces(line %d) = %+v, %v; want %+v", tc.path, tc.line, got, ok, tc.want)
		}
	}
}
