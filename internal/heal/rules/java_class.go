package rules

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// reJavaPublicClass is javac's "class algorithm is public, should be
// declared in a file named algorithm.java".
var reJavaPublicClass = lazyre.New(`(?:class|interface|enum|record) (\w+) is public, should be declared in a file named (\w+)\.java`)

// fixJavaPublicClass renames a public class to its file's name, when
// javac says the class must live in a file of its own name: the file's
// name is what the rest of the project compiles against (javac finds a
// class through the file named after it), so the class takes it. Only
// when the file names the class nowhere but on the reported line (no
// constructor, no self-reference), since an edit elsewhere would be
// outside the fix's window.
func fixJavaPublicClass(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	want := strings.TrimSuffix(path.Base(in.path), ".java")
	code := lang.Of(in.path).Code(in.content)
	ls := splitContent(in.content)
	cl := splitContent(code)
	for _, r := range in.reports {
		m := reJavaPublicClass.FindStringSubmatch(r.Message)
		if m == nil || r.LineNumber < 1 || r.LineNumber > len(ls.l) || len(cl.l) != len(ls.l) {
			continue
		}
		old := m[1]
		if m[2] != old || old == want || !isJavaIdent(want) {
			continue
		}
		word := regexp.MustCompile(`\b` + regexp.QuoteMeta(old) + `\b`)
		if len(word.FindAllStringIndex(code, -1)) != 1 || len(word.FindAllStringIndex(cl.l[r.LineNumber-1], -1)) != 1 ||
			len(regexp.MustCompile(`\b`+regexp.QuoteMeta(want)+`\b`).FindAllStringIndex(code, -1)) != 0 {
			continue // named elsewhere too, or the file's name is taken
		}
		at := word.FindStringIndex(cl.l[r.LineNumber-1])
		line := ls.l[r.LineNumber-1]
		ls.l[r.LineNumber-1] = line[:at[0]] + want + line[at[1]:]
		return edit{content: ls.String(), reason: fmt.Sprintf("the public class %s renamed %s, after its file, as javac asks (line %d)", old, want, r.LineNumber), confidence: 0.85}, true, nil
	}
	return edit{}, false, nil
}

// isJavaIdent reports whether s is a plain Java identifier.
func isJavaIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
