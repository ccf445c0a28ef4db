package rules

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// rePyUndefined matches an undefined name as Python (NameError), pyflakes,
// flake8 and ruff (F821) and pyright report it.
var rePyUndefined = lazyre.New(`NameError: name '(\w+)' is not defined|undefined name [` + "`" + `'"](\w+)[` + "`" + `'"]|"(\w+)" is not defined`)

// pyNever are standard modules nobody means by a bare name.
var pyNever = map[string]bool{"this": true, "antigravity": true}

// fixPyImports adds the import of an undefined name: a module of the
// project (name.py or name/__init__.py beside the file or at the
// workspace root), else a module of the standard library (Python's own
// sys.stdlib_module_names), else a function, class or constant that
// exactly one sibling module defines at its top level (from mod import
// name).
func fixPyImports(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	loadIndexes()
	ls := splitContent(in.content)
	have := pyImported(ls.l)
	var adds []string
	for _, r := range in.reports {
		m := rePyUndefined.FindStringSubmatch(r.Message)
		if m == nil || strings.Contains(r.Message, "Did you mean") {
			continue // Python found a close name in scope: the suggest tier's
		}
		name := m[1] + m[2] + m[3]
		if have[name] || pyDefines(in.content, name) {
			continue
		}
		line := ""
		switch {
		case pyProjectModule(in.workspace, in.path, name):
			line = "import " + name
		case pythonStdlib[name] && !strings.HasPrefix(name, "_") && !pyNever[name]:
			line = "import " + name
		default:
			if mod, ok := pySiblingDefining(in.workspace, in.path, name); ok {
				line = "from " + mod + " import " + name
			}
		}
		if line == "" {
			continue
		}
		have[name] = true
		adds = append(adds, line)
	}
	if len(adds) == 0 {
		return edit{}, false, nil
	}
	sort.Strings(adds)
	at := pyImportAnchor(ls.l)
	block := adds
	if at < len(ls.l) && strings.TrimSpace(ls.l[at]) != "" && !pyImportLine.MatchString(ls.l[at]) {
		block = append(block, "")
	}
	if at > 0 && !pyImportLine.MatchString(ls.l[at-1]) && strings.TrimSpace(ls.l[at-1]) != "" {
		block = append([]string{""}, block...)
	}
	for i := len(block) - 1; i >= 0; i-- {
		ls.insertAfter(at, block[i])
	}
	return edit{content: ls.String(), reason: "add the missing " + strings.Join(adds, ", "), confidence: 0.9}, true, nil
}

var (
	pyImportLine = lazyre.New(`^(import\s+[\w.]+(\s+as\s+\w+)?(\s*,\s*[\w.]+(\s+as\s+\w+)?)*|from\s+[\w.]+\s+import\s+[^(]+)\s*(#.*)?$`)
	pyImportAny  = lazyre.New(`^(import|from)\s`)
	reAsName     = lazyre.New(`^([\w.]+)(?:\s+as\s+(\w+))?$`)
)

// pyImported returns the names the module's top-level imports bind.
func pyImported(src []string) map[string]bool {
	names := map[string]bool{}
	for _, l := range src {
		l = strings.TrimSpace(pyCode(l))
		var list string
		switch {
		case strings.HasPrefix(l, "import "):
			list = strings.TrimPrefix(l, "import ")
		case strings.HasPrefix(l, "from ") && strings.Contains(l, " import "):
			list = l[strings.Index(l, " import ")+len(" import "):]
		default:
			continue
		}
		for _, part := range strings.Split(strings.Trim(list, "() \\"), ",") {
			m := reAsName.FindStringSubmatch(strings.TrimSpace(part))
			if m == nil {
				continue
			}
			if m[2] != "" {
				names[m[2]] = true
			} else {
				names[strings.SplitN(m[1], ".", 2)[0]] = true
			}
		}
	}
	return names
}

// pyDefines reports whether the module defines name at its top level.
func pyDefines(content, name string) bool {
	re := lazyre.New(`(?m)^(?:def|class|async def)\s+` + regexp.QuoteMeta(name) + `\b|^` + regexp.QuoteMeta(name) + `\s*(?::[^=]*)?=[^=]`)
	return re.MatchString(content)
}

// pyProjectModule reports whether name is a module of the project: a
// name.py or name/__init__.py beside the file, at the workspace root or
// in its src folder.
func pyProjectModule(ws, file, name string) bool {
	if path.Base(strings.TrimSuffix(file, ".py")) == name {
		return false
	}
	for _, dir := range []string{path.Dir(file), ".", "src"} {
		base := filepath.Join(ws, filepath.FromSlash(dir))
		if isFile(filepath.Join(base, name+".py")) || isFile(filepath.Join(base, name, "__init__.py")) {
			return true
		}
	}
	return false
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// pySiblingDefining returns the one module beside file that defines name
// at its top level.
func pySiblingDefining(ws, file, name string) (string, bool) {
	dir := filepath.Join(ws, filepath.FromSlash(path.Dir(file)))
	es, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	var found []string
	for _, e := range es {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".py") || n == path.Base(file) || n == "__init__.py" || strings.HasPrefix(n, "test_") {
			continue
		}
		mod := strings.TrimSuffix(n, ".py")
		if !isIdent(mod) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || len(b) > 1<<20 {
			continue
		}
		if pyDefines(string(b), name) {
			found = append(found, mod)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// pyImportAnchor returns the line after which a new import goes: after
// the last import of the module's header (shebang, comments, docstring,
// imports), else after the docstring and the leading comments.
func pyImportAnchor(src []string) int {
	at := 0
	i := 0
	started := false // a docstring or an import was seen
	for i < len(src) {
		t := strings.TrimSpace(src[i])
		switch {
		case t == "":
			i++
			continue
		case strings.HasPrefix(t, "#"):
			if !started {
				at = i + 1
			}
			i++
			continue
		case !started && pyDocstringStart(t) != "":
			started = true
			q := pyDocstringStart(t)
			rest := t[strings.Index(t, q)+3:]
			for !strings.Contains(rest, q) && i+1 < len(src) {
				i++
				rest = src[i]
			}
			i++
			at = i
			continue
		case pyImportAny.MatchString(t) && indentOf(src[i]) == "":
			started = true
			// a parenthesised import runs to its closing parenthesis
			if strings.Contains(t, "(") && !strings.Contains(t, ")") {
				for i+1 < len(src) && !strings.Contains(src[i], ")") {
					i++
				}
			}
			i++
			at = i
			continue
		}
		break
	}
	return at
}

// pyDocstringStart returns the quotes a module docstring opens with, or "".
func pyDocstringStart(t string) string {
	t = strings.TrimLeft(t, "rRuU")
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(t, q) {
			return q
		}
	}
	return ""
}
