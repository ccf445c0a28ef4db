package rules

import (
	"strings"
)

// The sections of a Python import block, in the order PEP 8 and isort
// keep them, each a group of its own.
const (
	pySectFuture = iota
	pySectStd
	pySectThird
	pySectLocal
)

// pyStmt is one top-level import statement of a module's header.
type pyStmt struct {
	from, to int // 0-based lines, to exclusive (a parenthesised import spans several)
	module   string
	isFrom   bool
	section  int
	group    int // index of its group: statements with no blank line between them
}

// pyHeader is the start of a module up to its first statement that is
// not an import: shebang and comments, docstring, imports.
type pyHeader struct {
	// top is the line after the shebang, the leading comments and the
	// docstring: where a first import goes.
	top   int
	stmts []pyStmt
}

// scanPyHeader reads the header of a module. classify gives the section
// of a module name ("" root for a relative import).
func scanPyHeader(src []string, classify func(module string) int) pyHeader {
	var h pyHeader
	i, group := 0, 0
	started := false // a docstring or a statement was seen
	blank := false   // a blank line since the last statement
	for i < len(src) {
		t := strings.TrimSpace(src[i])
		switch {
		case t == "":
			blank = true
			i++
			continue
		case strings.HasPrefix(t, "#"):
			if !started {
				h.top = i + 1
			}
			i++
			continue
		case !started && pyDocstringStart(t) != "":
			started = true
			i = pyDocstringEnd(src, i)
			h.top = i
			continue
		case pyImportAny.MatchString(t) && indentOf(src[i]) == "":
			started = true
			from := i
			i = pyStatementEnd(src, i)
			if blank && len(h.stmts) > 0 {
				group++
			}
			blank = false
			mod, isFrom := pyImportModule(t)
			h.stmts = append(h.stmts, pyStmt{from: from, to: i, module: mod, isFrom: isFrom, section: classify(mod), group: group})
			continue
		}
		break
	}
	return h
}

// pyDocstringEnd returns the line after the docstring that opens on line i.
func pyDocstringEnd(src []string, i int) int {
	t := strings.TrimSpace(src[i])
	q := pyDocstringStart(t)
	rest := t[strings.Index(t, q)+3:]
	for !strings.Contains(rest, q) && i+1 < len(src) {
		i++
		rest = src[i]
	}
	return i + 1
}

// pyStatementEnd returns the line after the statement that starts on line
// i: a parenthesised import runs to its closing parenthesis, a backslash
// continues the line.
func pyStatementEnd(src []string, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		code := strings.TrimRight(pyCode(src[i]), " \t\r")
		depth += strings.Count(code, "(") - strings.Count(code, ")")
		if depth <= 0 && !strings.HasSuffix(code, "\\") {
			return i + 1
		}
	}
	return len(src)
}

// pyImportModule returns the module an import statement names (the first
// one of "import a, b") and whether it is a from-import.
func pyImportModule(t string) (string, bool) {
	f := strings.Fields(strings.NewReplacer(",", " ", "(", " ", "\\", " ").Replace(t))
	if len(f) < 2 {
		return "", false
	}
	return f[1], f[0] == "from"
}

// pySectionOf gives the section of a module for a file of the workspace:
// __future__, the standard library, the project's own modules (relative
// imports included), or a third-party package.
func pySectionOf(ws, file string) func(string) int {
	return func(mod string) int {
		root, _, _ := strings.Cut(mod, ".")
		switch {
		case mod == "__future__":
			return pySectFuture
		case strings.HasPrefix(mod, ".") || pyProjectModule(ws, file, root):
			return pySectLocal
		case pythonStdlib[root]:
			return pySectStd
		}
		return pySectThird
	}
}

// pyKey orders the statements of one section as isort does: plain
// imports first, then from-imports, each by module name regardless of
// case.
func pyKey(isFrom bool, module string) string {
	k := "0"
	if isFrom {
		k = "1"
	}
	return k + strings.ToLower(module)
}

// insertPyImport adds one import statement to a module's lines, in its
// section's group at its sorted place; in a new group of its own, between
// the groups of the sections before and after it, when the module has no
// group of that section; and after the docstring, set off by blank lines,
// when the module has no imports.
func insertPyImport(ls *lines, stmt string, section int, classify func(string) int) {
	h := scanPyHeader(ls.l, classify)
	mod, isFrom := pyImportModule(stmt)
	key := pyKey(isFrom, mod)
	if len(h.stmts) == 0 {
		block := []string{stmt}
		if h.top > 0 {
			block = append([]string{""}, block...)
		}
		if h.top < len(ls.l) && strings.TrimSpace(ls.l[h.top]) != "" {
			block = append(block, "")
		}
		insertLines(ls, h.top, block)
		return
	}
	if g, ok := pySectionGroup(h, section); ok {
		at := -1
		for _, s := range h.stmts {
			if s.group != g || s.section != section {
				continue
			}
			if pyKey(s.isFrom, s.module) > key {
				at = pyCommentsAbove(ls.l, s.from, h.top)
				break
			}
			at = s.to
		}
		insertLines(ls, at, []string{stmt})
		return
	}
	for _, s := range h.stmts {
		if s.section > section && pyGroupStart(h, s.group) == s.from {
			insertLines(ls, pyCommentsAbove(ls.l, s.from, h.top), []string{stmt, ""})
			return
		}
	}
	at := h.stmts[len(h.stmts)-1].to
	block := []string{"", stmt}
	if at < len(ls.l) && strings.TrimSpace(ls.l[at]) != "" {
		block = append(block, "")
	}
	insertLines(ls, at, block)
}

// pySectionGroup returns the group that holds the section's imports: the
// first group made only of them, else the first that has some.
func pySectionGroup(h pyHeader, section int) (int, bool) {
	pure := map[int]bool{}
	for _, s := range h.stmts {
		if _, seen := pure[s.group]; !seen {
			pure[s.group] = true
		}
		if s.section != section {
			pure[s.group] = false
		}
	}
	mixed := -1
	for _, s := range h.stmts {
		if s.section != section {
			continue
		}
		if pure[s.group] {
			return s.group, true
		}
		if mixed < 0 {
			mixed = s.group
		}
	}
	return mixed, mixed >= 0
}

func pyGroupStart(h pyHeader, g int) int {
	for _, s := range h.stmts {
		if s.group == g {
			return s.from
		}
	}
	return -1
}

// pyCommentsAbove returns the first line of the comments right above line
// i (i itself when there are none), not above floor: they belong to the
// statement there.
func pyCommentsAbove(src []string, i, floor int) int {
	for i > floor && strings.HasPrefix(strings.TrimSpace(src[i-1]), "#") {
		i--
	}
	return i
}

// insertLines inserts block before the 0-based line at.
func insertLines(ls *lines, at int, block []string) {
	for i := len(block) - 1; i >= 0; i-- {
		ls.insertAfter(at, block[i])
	}
}
