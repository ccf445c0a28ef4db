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
	"github.com/salve-dev/salve/internal/safefile"
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
	classify := pySectionOf(in.workspace, in.path)
	for _, r := range in.reports {
		m := rePyUndefined.FindStringSubmatch(r.Message)
		if m == nil {
			continue
		}
		name := m[1] + m[2] + m[3]
		if have[name] || pyDefines(in.content, name) {
			continue
		}
		line, section := pyImportFor(in.workspace, in.path, name)
		if line == "" {
			continue
		}
		// Python's "Did you mean" names a close name in scope: the suggest
		// tier's fix, unless the line uses the name as a module.
		if strings.Contains(r.Message, "Did you mean") && !pyImportWins(line, pyUsedAsModule(ls.l, r.LineNumber, name)) {
			continue
		}
		have[name] = true
		adds = append(adds, line)
		insertPyImport(&ls, line, section, classify)
	}
	if len(adds) == 0 {
		return edit{}, false, nil
	}
	sort.Strings(adds)
	return edit{content: ls.String(), reason: "add the missing " + strings.Join(adds, ", "), confidence: 0.9}, true, nil
}

// pyImportFor returns the import statement that binds name, and its
// section: a module of the project, else of the standard library, else
// the one sibling module that defines name (from mod import name).
func pyImportFor(ws, file, name string) (string, int) {
	loadIndexes()
	switch {
	case !isIdent(name) || pyNever[name]:
		return "", 0
	case pyProjectModule(ws, file, name):
		return "import " + name, pySectLocal
	case pythonStdlib[name] && !strings.HasPrefix(name, "_"):
		return "import " + name, pySectStd
	}
	if mod, ok := pySiblingDefining(ws, file, name); ok {
		return "from " + mod + " import " + name, pySectLocal
	}
	return "", 0
}

// pyImportWins reports whether an import beats the close name Python
// proposes in its "Did you mean": only a module used as a module (name.attr)
// does; a name a sibling module defines is as likely the close name
// misspelt.
func pyImportWins(stmt string, usedAsModule bool) bool {
	return usedAsModule && strings.HasPrefix(stmt, "import ")
}

// pyUsedAsModule reports whether line n (1-based) uses name as a module:
// name.attr outside strings and comments.
func pyUsedAsModule(src []string, n int, name string) bool {
	if n < 1 || n > len(src) {
		return false
	}
	code := pyCode(src[n-1])
	for i := 0; ; {
		j := strings.Index(code[i:], name+".")
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !isIdentByte(code[at-1]) && code[at-1] != '.' {
			return true
		}
		i = at + len(name)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

var (
	pyImportAny = lazyre.New(`^(import|from)\s`)
	reAsName    = lazyre.New(`^([\w.]+)(?:\s+as\s+(\w+))?$`)
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
		b, err := safefile.ReadOpts(filepath.Join(dir, n), 1<<20, safefile.Options{NoFollow: true})
		if err != nil {
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
