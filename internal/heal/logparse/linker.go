package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// Linker errors that carry more than one location: GNU ld's "multiple
// definition" (the duplicate and the first definition), and lld's
// "duplicate symbol" and "undefined symbol" blocks (">>> defined at",
// ">>> referenced by").

func init() {
	register(
		&Row{Name: "ld-multiple-definition", Family: "c", Tool: "ld",
			Doc: "GNU ld multiple definition: file.c:line: multiple definition of `sym'; obj:file2.c:line: first defined here (both locations; without debug info, the definitions read from the workspace)"},
		&Row{Name: "lld", Family: "c", Tool: "lld",
			Doc: "lld: error: duplicate symbol / undefined symbol: sym, then >>> defined at file:line / >>> referenced by file:line"},
	)
	addHandler(47, func() handler { return &linker{} })
}

var (
	reLdMulti   = lazyre.New("^(?:\\S*ld(?:\\.\\w+)?: )?(.+?): multiple definition of [`'‘]([^'’]+)['’](?:; (.+?): first defined here)?$")
	reLdFirst   = lazyre.New(`^(?:\S*ld(?:\.\w+)?: )?(.+?): first defined here$`)
	reLldHead   = lazyre.New(`^(?:\S*ld\.lld|\S*ld64\.lld|lld-link|\S*wasm-ld)(?:\.exe)?: error: (duplicate symbol|undefined symbol|undefined reference to): (.+)$`)
	reLldAt     = lazyre.New(`^>>> (defined at|referenced by) (.+?)(?: \((.+)\))?$`)
	reLdSection = lazyre.New(`:\(\.[\w.$]+\+0x[0-9a-fA-F]+\)$`)
)

// linker reads the multi-location linker formats.
type linker struct {
	sym  string // the symbol of a multiple definition whose "first defined here" line is still to come
	lld  string // "duplicate symbol" or "undefined symbol" while reading an lld block
	msg  string
	seen int // locations read in the lld block
}

func (l *linker) line(p *parser, s string) bool {
	if l.lld != "" {
		if hasPrefix(s, ">>> ") {
			l.lldLine(p, s)
			return true
		}
		l.lld = ""
	}
	if l.sym != "" {
		sym := l.sym
		l.sym = ""
		if hasSuffix(s, "first defined here") {
			if m := reLdFirst.FindStringSubmatch(s); m != nil {
				l.at(p, m[1], sym, "multiple definition of `"+sym+"' (first defined here)", "ld")
				return true
			}
		}
	}
	if ndMultiDef.in(s, p.mask) {
		m := reLdMulti.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		sym := own(m[2])
		msg := "multiple definition of `" + sym + "'"
		l.at(p, m[1], sym, msg, "ld")
		if m[3] != "" {
			l.at(p, m[3], sym, msg+" (first defined here)", "ld")
		} else {
			l.sym = sym // older ld prints the first definition on the next line
		}
		return true
	}
	if len(s) < 8 {
		return false
	}
	if c := s[0]; (c == 'l' || c == '/' || c == 'w' || c == '.' || len(s) > 2 && s[1] == ':') && lldStart(s) && strings.Contains(s, ": error: ") {
		if m := reLldHead.FindStringSubmatch(s); m != nil {
			l.lld, l.msg, l.seen = m[1], own(m[1]+": "+m[2]), 0
			return true
		}
	}
	return false
}

// lldStart is a cheap test for a line that starts with lld's name
// (ld.lld, ld64.lld, lld-link, wasm-ld, with or without a directory).
func lldStart(s string) bool {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return false
	}
	tool := s[:i]
	return hasSuffix(tool, "lld") || hasSuffix(tool, "lld.exe") || hasSuffix(tool, "lld-link") || hasSuffix(tool, "wasm-ld")
}

// lldLine reads one ">>> defined at" or ">>> referenced by" line. The
// continuation lines (">>>     obj.o:(sym)") name objects, not sources.
func (l *linker) lldLine(p *parser, s string) {
	m := reLldAt.FindStringSubmatch(s)
	if m == nil || l.seen >= 8 {
		return
	}
	l.seen++
	loc := m[2]
	if m[3] != "" && strings.Contains(m[3], ":") {
		loc = m[3] // "main.c:6 (/abs/main.c:6)": the full path
	}
	sym := strings.TrimSpace(l.msg[strings.IndexByte(l.msg, ':')+1:])
	file, line := splitLoc(loc)
	if line == 0 && hasPrefix(l.lld, "undefined") {
		return // an object file; no source line to give
	}
	l.report(p, file, line, sym, l.msg, "lld")
}

// at reports a GNU ld location: "file.c:12", "obj.o:file.c:12", or
// without debug info "file.c:(.text+0x0)" and "obj.o:file.c:(.text+0x0)".
func (l *linker) at(p *parser, loc, sym, msg, tool string) {
	nodebug := false
	if i := reLdSection.FindStringIndex(loc); i != nil {
		loc, nodebug = loc[:i[0]], true
	}
	var file string
	line := 0
	if nodebug {
		file = loc
	} else {
		file, line = splitLoc(loc)
	}
	// An object (or archive member) before the source: keep the source.
	if i := strings.LastIndexByte(file, ':'); i >= 0 && !(i == 1 && len(file) > 2) {
		file = file[i+1:]
	}
	l.report(p, file, line, sym, msg, tool)
}

// report emits a linker location; without a line, the symbol's
// definition is looked up in the workspace's file.
func (l *linker) report(p *parser, file string, line int, sym, msg, tool string) {
	conf := 0.85
	if line == 0 {
		line, conf = p.findDefinition(file, bareSymbol(sym)), 0.6
		if line == 0 {
			return
		}
	}
	p.emit(finding{file: own(file), line: line, typ: contract.ErrTypeError, msg: own(msg), tool: tool, conf: conf, base: p.base(),
		row: map[string]string{"ld": "ld-multiple-definition", "lld": "lld"}[tool]})
}

// splitLoc splits "file:line" (or "file:line:col"); a location without
// a line gives 0.
func splitLoc(loc string) (string, int) {
	loc = strings.TrimSpace(loc)
	i := strings.LastIndexByte(loc, ':')
	if i < 0 || !allDigits(loc[i+1:]) || i+1 == len(loc) {
		return loc, 0
	}
	if j := strings.LastIndexByte(loc[:i], ':'); j >= 0 && allDigits(loc[j+1:i]) && j+1 < i {
		return loc[:j], atoi(loc[j+1 : i]) // file:line:col
	}
	return loc[:i], atoi(loc[i+1:])
}

// bareSymbol strips a C++ symbol's parameters and qualifiers.
func bareSymbol(sym string) string {
	if i := strings.IndexByte(sym, '('); i >= 0 {
		sym = sym[:i]
	}
	if i := strings.LastIndex(sym, "::"); i >= 0 {
		sym = sym[i+2:]
	}
	return strings.TrimSpace(sym)
}

func (l *linker) flush(p *parser) {}

// findDefinition returns the first line of file, read from the workspace,
// that defines sym: a function definition (sym( not called, the line not
// a prototype), else a variable definition that is not extern. It
// returns 0 without a workspace or when nothing matches.
func (p *parser) findDefinition(file, sym string) int {
	if sym == "" {
		return 0
	}
	if n := p.firstSourceLine(file, func(_ int, line string) bool {
		t := strings.TrimSpace(line)
		return strings.Contains(t, sym+"(") && !isCallOf(t, sym) && !hasSuffix(t, ";") && hasWord(t, sym)
	}); n > 0 {
		return n
	}
	return p.firstSourceLine(file, func(_ int, line string) bool {
		t := strings.TrimSpace(line)
		return hasWord(t, sym) && !hasPrefix(t, "extern ") && !hasPrefix(t, "//") && !hasPrefix(t, "#")
	})
}

// hasWord reports whether w occurs in s as a whole identifier.
func hasWord(s, w string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(w)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		off = i + 1
	}
}
