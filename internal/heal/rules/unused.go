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

// The unused-import and unused-variable messages of the toolchains that
// flag them: pyflakes/flake8/ruff (F401, F841), pylint (W0611), tsc
// (TS6133, TS6192, TS6196), eslint (no-unused-vars) and gcc/clang
// (-Wunused-variable).
var (
	reUnusedPyImport = lazyre.New("[`'\"]([\\w.]+)[`'\"] imported but unused|Unused import ([\\w.]+)")
	reUnusedPyVar    = lazyre.New("[Ll]ocal variable [`'\"](\\w+)[`'\"] is assigned to but never used")
	reUnusedJS       = lazyre.New(`'([\w$]+)' is declared but (?:its value is )?never (?:read|used)|'([\w$]+)' is (?:defined|assigned a value) but never used`)
	reUnusedJSAll    = lazyre.New(`All imports in import declaration are unused`)
	reUnusedC        = lazyre.New(`unused variable ['‘](\w+)['’]`)
)

// fixUnused removes what the toolchain flags as unused, on the reported
// line only: a name from an import (the whole import when it was the
// last), or a local variable. A variable whose value has no call goes with
// its line; one assigned from a call gives way to the call alone, as a
// statement (`x = f()` → `f()`, `const x = await f();` → `await f();`,
// `int n = f(a, b);` → `f(a, b);`), so the call's side effects stay.
func fixUnused(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	ext := strings.ToLower(path.Ext(in.path))
	var did []string
	var drop []int
	for _, r := range in.reports {
		l := r.LineNumber
		if l < 1 || l > len(ls.l) || contains(drop, l) {
			continue
		}
		line := ls.l[l-1]
		var out string
		var ok bool
		var what string
		switch ext {
		case ".py":
			if m := reUnusedPyImport.FindStringSubmatch(r.Message); m != nil {
				out, ok = dropPyImport(line, m[1]+m[2])
				what = "remove unused import " + m[1] + m[2]
			} else if m := reUnusedPyVar.FindStringSubmatch(r.Message); m != nil {
				out, ok = dropPyVar(line, m[1])
				what = unusedWhat(m[1], out)
			}
		case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
			if reUnusedJSAll.MatchString(r.Message) {
				if reJSImportLine.MatchString(line) && strings.HasPrefix(strings.TrimSpace(line), "import ") && noComment(jsLexer, line) {
					out, ok = "", true
					what = "remove the unused import on line " + fmt.Sprint(l)
				}
			} else if m := reUnusedJS.FindStringSubmatch(r.Message); m != nil {
				name := m[1] + m[2]
				if out, ok = dropJSImport(line, name); ok {
					what = "remove unused import " + name
				} else if out, ok = dropDecl(line, name, reJSDecl, true); ok {
					what = unusedWhat(name, out)
				}
			}
		case ".c", ".h", ".cc", ".cpp", ".cxx":
			if m := reUnusedC.FindStringSubmatch(r.Message); m != nil {
				out, ok = dropDecl(line, m[1], reCDecl, false)
				what = unusedWhat(m[1], out)
			}
		}
		if !ok {
			continue
		}
		did = append(did, what)
		if out == "" {
			drop = append(drop, l)
			continue
		}
		ls.l[l-1] = out
	}
	if len(did) == 0 {
		return edit{}, false, nil
	}
	// Remove whole lines bottom-up.
	for i := len(ls.l); i >= 1; i-- {
		if contains(drop, i) {
			ls.remove(i, i)
		}
	}
	return edit{content: ls.String(), reason: strings.Join(did, "; "), confidence: 0.9}, true, nil
}

// The language table's rows whose lexers tell the rules below whether a
// line holds a comment.
var (
	jsLexer = lang.ByName("javascript")
	cLexer  = lang.ByName("cpp")
)

// noComment reports whether line holds no comment in syn's syntax.
func noComment(syn *lang.Language, line string) bool {
	for _, s := range syn.Spans(line) {
		if s.Kind == lang.Comment {
			return false
		}
	}
	return true
}

var rePyImportStmt = lazyre.New(`^(\s*)(import\s+|from\s+[\w.]+\s+import\s+)(\(?)([^()#]+?)(\)?)\s*$`)

// dropPyImport removes name from a one-line Python import; "" means the
// whole line goes. A line of a parenthesised import holding only the name
// goes too.
func dropPyImport(line, name string) (string, bool) {
	if t := strings.TrimSuffix(strings.TrimSpace(line), ","); t == name || t == name[strings.LastIndex(name, ".")+1:] {
		return "", true
	}
	m := rePyImportStmt.FindStringSubmatch(line)
	if m == nil || (m[3] == "") != (m[5] == "") {
		return "", false
	}
	parts := strings.Split(m[4], ",")
	var keep []string
	found := false
	for _, p := range parts {
		p = strings.TrimSpace(p)
		a := reAsName.FindStringSubmatch(p)
		if a == nil {
			return "", false
		}
		full := a[1]
		if strings.HasPrefix(m[2], "from") {
			full = strings.TrimSpace(strings.TrimPrefix(strings.Fields(m[2])[1], "")) + "." + a[1]
		}
		if !found && (a[2] == name || full == name || a[1] == name || (a[2] != "" && strings.HasSuffix(name, "."+a[2]))) {
			found = true
			continue
		}
		keep = append(keep, p)
	}
	if !found {
		return "", false
	}
	if len(keep) == 0 {
		return "", true
	}
	return m[1] + m[2] + m[3] + strings.Join(keep, ", ") + m[5], true
}

var rePyAssign = lazyre.New(`^(\s*)(\w+)(\s*(?::[^=]+)?=\s*)(.+)$`)

// dropPyVar removes `name = value` when value has no call, else keeps
// the value alone as an expression statement.
func dropPyVar(line, name string) (string, bool) {
	m := rePyAssign.FindStringSubmatch(line)
	if m == nil || m[2] != name || strings.HasPrefix(strings.TrimSpace(m[4]), "=") || hasAssign(m[4]) || !noComment(pyLexer, line) || !balanced(m[4]) {
		return "", false
	}
	if !strings.Contains(m[4], "(") {
		return "", true
	}
	return m[1] + strings.TrimSpace(m[4]), true
}

// unusedWhat says what removing an unused variable did to its line: out
// is what is left of it.
func unusedWhat(name, out string) string {
	if out == "" {
		return "remove unused variable " + name
	}
	return "remove unused variable " + name + ", keeping the call `" + strings.TrimSuffix(strings.TrimSpace(out), ";") + "` for its side effects"
}

var reJSImportNamed = lazyre.New(`^(\s*import\s+(?:type\s+)?)(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?(\s*from\s+.+)$`)

// dropJSImport removes name from an import or require line; "" means the
// whole line goes.
func dropJSImport(line, name string) (string, bool) {
	if !noComment(jsLexer, line) {
		return "", false
	}
	t := strings.TrimSpace(line)
	q := regexp.QuoteMeta(name)
	if lazyre.New(`^import\s+(?:type\s+)?(?:\*\s+as\s+)?`+q+`\s+from\s`).MatchString(t) ||
		lazyre.New(`^(?:const|let|var)\s+`+q+`\s*=\s*require\(`).MatchString(t) {
		return "", true
	}
	if m := lazyre.New(`^(\s*(?:const|let|var)\s*)\{([^}]*)\}(\s*=\s*require\(.*)$`).FindStringSubmatch(line); m != nil {
		rest, ok := dropSpec(m[2], name)
		if !ok {
			return "", false
		}
		if rest == "" {
			return "", true
		}
		return m[1] + "{ " + rest + " }" + m[3], true
	}
	m := reJSImportNamed.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	def, named := m[2], m[3]
	switch {
	case def == name:
		def = ""
	default:
		rest, ok := dropSpec(named, name)
		if !ok {
			return "", false
		}
		named = rest
	}
	switch {
	case def == "" && strings.TrimSpace(named) == "":
		return "", true
	case def == "":
		return m[1] + "{ " + named + " }" + m[4], true
	case strings.TrimSpace(named) == "":
		return m[1] + def + m[4], true
	}
	return m[1] + def + ", { " + named + " }" + m[4], true
}

// dropSpec removes name from a list of import specifiers ("a, b as c").
func dropSpec(list, name string) (string, bool) {
	var keep []string
	found := false
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(p, "type "))
		bound := f[len(f)-1]
		if len(f) >= 3 && f[len(f)-2] == "as" || len(f) == 1 || strings.Contains(p, ":") {
			bound = strings.TrimSpace(bound[strings.LastIndex(bound, ":")+1:])
		}
		if !found && bound == name {
			found = true
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, ", "), found
}

var (
	reJSDecl = lazyre.New(`^\s*(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?(?:=\s*(.*?))?;?\s*$`)
	reCDecl  = lazyre.New(`^\s*(?:(?:static|const|volatile|register|unsigned|signed|long|short|struct|enum)\s+)*[A-Za-z_][\w]*[\s*]+([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:=\s*(.*?))?;\s*$`)
)

// dropDecl removes a one-line declaration of name alone whose initial
// value has no call; a value that is one call (in JavaScript, awaited or
// constructed too) stays as a statement of its own.
func dropDecl(line, name string, re *lazyre.Regexp, js bool) (string, bool) {
	syn := cLexer
	if js {
		syn = jsLexer
	}
	if !noComment(syn, line) {
		return "", false
	}
	m := re.FindStringSubmatch(line)
	if m == nil || m[1] != name || hasAssign(m[2]) || !balanced(m[2]) || topComma(m[2]) {
		return "", false
	}
	if !strings.ContainsAny(m[2], "(") && !strings.Contains(m[2], "new ") && !strings.Contains(m[2], "await ") {
		return "", true
	}
	v := strings.TrimSpace(m[2])
	if js {
		v = strings.TrimPrefix(strings.TrimPrefix(v, "await "), "new ")
	}
	if !reOneCall.MatchString(v) {
		return "", false
	}
	return indentOf(line) + strings.TrimSuffix(strings.TrimSpace(m[2]), ";") + ";", true
}

// reOneCall matches an expression that is one call of a (dotted) name:
// what can stand as a statement without a compiler's unused-value warning.
var reOneCall = lazyre.New(`^[A-Za-z_$][\w$]*(?:\s*(?:\.|->)\s*[A-Za-z_$][\w$]*)*\s*\(.*\)$`)

// topComma reports whether s holds a comma outside brackets: several
// declarators, whose removal is not one line's.
func topComma(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// balanced reports whether brackets open and close on the line.
func balanced(s string) bool {
	return strings.Count(s, "(") == strings.Count(s, ")") && strings.Count(s, "[") == strings.Count(s, "]") && strings.Count(s, "{") == strings.Count(s, "}")
}

// hasAssign reports whether an expression holds an assignment of its own
// (a = b = 1, x := y), which removing the line would lose.
func hasAssign(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			continue
		}
		prev, next := byte(0), byte(0)
		if i > 0 {
			prev = s[i-1]
		}
		if i+1 < len(s) {
			next = s[i+1]
		}
		if next == '=' || next == '>' {
			i++
			for i+1 < len(s) && s[i+1] == '=' {
				i++
			}
			continue
		}
		if prev == '!' || prev == '<' || prev == '>' || prev == '=' {
			continue
		}
		return true
	}
	return false
}
