package lang

import "github.com/salve-dev/salve/internal/lazyre"

// privateFuncs holds, per language row, the first line of a declaration of
// a function private to its file or package, with the name as group 1: a
// fix of the code under test may add such a helper beside the function it
// fixes, when only that function calls it.
var privateFuncs = map[string]*lazyre.Regexp{
	// Go: a top-level function (no receiver) whose name is not exported.
	"go": lazyre.New(`^func\s+([a-z_][A-Za-z0-9_]*)\s*[\[(]`),
	// Python: a module-level def, or a method whose name is private.
	"python": lazyre.New(`^(?:def\s+([A-Za-z_]\w*)\s*\(|\s+def\s+(_[A-Za-z_]\w*)\s*\()`),
	// JavaScript and TypeScript: a function declaration that is not
	// exported.
	"javascript": lazyre.New(`^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*[<(]`),
	"typescript": lazyre.New(`^(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*[<(]`),
	// C and C++: a function with internal linkage.
	"c":   lazyre.New(`^static\s+(?:inline\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(`),
	"cpp": lazyre.New(`^static\s+(?:inline\s+)?[A-Za-z_][\w\s\*:<>]*?\b([A-Za-z_]\w*)\s*\(`),
	// Rust: a function without pub, at the top level or in an impl.
	"rust": lazyre.New(`^\s*(?:const\s+)?fn\s+([a-z_]\w*)\s*[<(]`),
	// Java and Kotlin: a private method.
	"java":   lazyre.New(`^\s+private\s+(?:static\s+)?(?:final\s+)?[\w<>\[\],.? ]+?\s+([a-zA-Z_]\w*)\s*\(`),
	"kotlin": lazyre.New(`^\s*private\s+fun\s+([a-zA-Z_]\w*)\s*[<(]`),
}

// PrivateFunc returns the name a line declares when it starts a function
// private to its file or package in l (a Go function whose name is not
// exported, a C static function, a Java private method…), else "".
func (l *Language) PrivateFunc(line string) string {
	if l == nil {
		return ""
	}
	re := privateFuncs[l.Name]
	if re == nil {
		return ""
	}
	m := re.FindStringSubmatch(line)
	for _, g := range m[min(1, len(m)):] {
		if g != "" {
			return g
		}
	}
	return ""
}
