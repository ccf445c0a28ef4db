package target

import (
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The lexical Python reader: what lexOutline uses when no interpreter can
// parse the sources. It reads logical lines of code with strings and
// comments blanked.
var (
	pyImportRe = lazyre.New(`^import\s+(.+)$`)
	pyFromRe   = lazyre.New(`^from\s+(\.*)\s*([\w.]*)\s+import\s+(.+)$`)
	pyAliasRe  = lazyre.New(`^([\w.]+|\*)(?:\s+as\s+(\w+))?$`)
	pyRefRe    = lazyre.New(`[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*`)
)

// Bounds of a lexical outline, as the outline program has.
const (
	maxOutlineItems = 20000
	maxQualified    = 512 // bytes of a qualified name
)

// pyLex is the language table's row whose lexer blanks Python's comments
// and literals.
var pyLex = lang.ByName("python")

// pyKeywords are never references.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// lexOutline outlines a Python source without a parser: defs and classes
// by indentation, imports by their statement forms, references as dotted
// names not followed by '=' (an assignment or a keyword argument).
func lexOutline(src string, wantRefs bool) pyOutline {
	code := pyLex.Code(src)
	lines := strings.Split(code, "\n")
	o := pyOutline{Defs: []pyDef{}, Imports: []pyImport{}, Refs: []pyRef{}}
	type scope struct {
		indent, def int
		q           string // qualified name
	}
	var stack []scope
	last := 0 // the last line holding code
	closeTo := func(ind int) {
		for len(stack) > 0 && stack[len(stack)-1].indent >= ind {
			d := &o.Defs[stack[len(stack)-1].def]
			d.E = max(last, d.D)
			stack = stack[:len(stack)-1]
		}
	}
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" {
			continue
		}
		if len(o.Defs)+len(o.Imports)+len(o.Refs) > maxOutlineItems {
			break
		}
		first, ind := i, indentOf(lines[i])
		closeTo(ind)
		logical, next := logicalLine(lines, i)
		i, last = next, next+1
		if name, kind, ok := pyDefLine(t); ok {
			q := name
			if n := len(stack); n > 0 && len(stack[n-1].q) < maxQualified {
				q = stack[n-1].q + "." + name
			}
			o.Defs = append(o.Defs, pyDef{Q: q, Kind: kind, L: decoratorStart(lines, first, ind), D: first + 1, E: first + 1, Args: pyArgs(logical)})
			stack = append(stack, scope{indent: ind, def: len(o.Defs) - 1, q: q})
			if k := strings.LastIndexByte(logical, ':'); k >= 0 && wantRefs {
				o.Refs = append(o.Refs, lexRefs(logical[k+1:], first+1)...)
			}
			continue
		}
		if ims, ok := pyImports(logical, first+1); ok {
			o.Imports = append(o.Imports, ims...)
			continue
		}
		if wantRefs {
			o.Refs = append(o.Refs, lexRefs(logical, first+1)...)
		}
	}
	closeTo(-1)
	return o
}

// logicalLine joins the physical lines of the statement starting at i
// (open brackets and trailing backslashes), and returns the index of its
// last line.
func logicalLine(lines []string, i int) (string, int) {
	var b strings.Builder
	depth := 0
	for j := i; j < len(lines) && j < i+200; j++ {
		l := lines[j]
		for k := 0; k < len(l); k++ {
			switch l[k] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
		cont := strings.HasSuffix(strings.TrimRight(l, " \t"), `\`)
		b.WriteString(strings.TrimSuffix(strings.TrimRight(l, " \t"), `\`))
		b.WriteByte(' ')
		if depth <= 0 && !cont {
			return strings.TrimSpace(b.String()), j
		}
	}
	return strings.TrimSpace(b.String()), min(len(lines)-1, i+199)
}

func pyDefLine(t string) (string, string, bool) {
	name, ok := pyDefName(t)
	if !ok {
		return "", "", false
	}
	kind := "def"
	if strings.HasPrefix(t, "class") {
		kind = "class"
	}
	return name, kind, true
}

// pyArgs returns the parameter names of a def's logical line.
func pyArgs(def string) []string {
	open := strings.IndexByte(def, '(')
	if open < 0 || strings.HasPrefix(strings.TrimPrefix(def, "async "), "class") {
		return nil
	}
	depth, end := 0, len(def)
	for k := open; k < len(def); k++ {
		if def[k] == '(' || def[k] == '[' {
			depth++
		} else if def[k] == ')' || def[k] == ']' {
			if depth--; depth == 0 {
				end = k
				break
			}
		}
	}
	var out []string
	for _, p := range splitTop(def[open+1 : end]) {
		p = strings.TrimLeft(strings.TrimSpace(p), "*")
		n := 0
		for n < len(p) && isIdentByte(p[n]) {
			n++
		}
		if n > 0 && len(out) < 64 {
			out = append(out, p[:n])
		}
	}
	return out
}

// splitTop splits s at the commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out, start = append(out, s[start:k]), k+1
			}
		}
	}
	return append(out, s[start:])
}

// pyImports reads an import statement.
func pyImports(logical string, line int) ([]pyImport, bool) {
	if m := pyFromRe.FindStringSubmatch(logical); m != nil {
		var out []pyImport
		names := strings.Trim(strings.TrimSpace(m[3]), "()")
		for _, part := range splitTop(names) {
			if a := pyAliasRe.FindStringSubmatch(strings.TrimSpace(part)); a != nil {
				out = append(out, pyImport{M: m[2], Level: len(m[1]), N: a[1], A: a[2], L: line})
			}
		}
		return out, true
	}
	if m := pyImportRe.FindStringSubmatch(logical); m != nil {
		var out []pyImport
		for _, part := range splitTop(m[1]) {
			if a := pyAliasRe.FindStringSubmatch(strings.TrimSpace(part)); a != nil && a[1] != "*" {
				out = append(out, pyImport{M: a[1], A: a[2], L: line})
			}
		}
		return out, true
	}
	return nil, false
}

// lexRefs returns the dotted names a logical line reads.
func lexRefs(s string, line int) []pyRef {
	var out []pyRef
	for _, loc := range pyRefRe.FindAllStringIndex(s, 256) {
		name := strings.Join(strings.Fields(s[loc[0]:loc[1]]), "")
		if pyKeywords[firstDotted(name)] || loc[0] > 0 && (s[loc[0]-1] >= '0' && s[loc[0]-1] <= '9') {
			continue
		}
		if before := strings.TrimRight(s[:loc[0]], " \t"); strings.HasSuffix(before, ".") {
			name = "?." + name
		}
		after := strings.TrimLeft(s[loc[1]:], " \t")
		if strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") {
			continue
		}
		out = append(out, pyRef{R: name, L: line, Call: strings.HasPrefix(after, "(")})
	}
	return out
}

func pyDefName(t string) (string, bool) {
	t = strings.TrimPrefix(t, "async ")
	rest, ok := strings.CutPrefix(t, "def ")
	if !ok {
		rest, ok = strings.CutPrefix(t, "class ")
	}
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	n := 0
	for n < len(rest) && isIdentByte(rest[n]) {
		n++
	}
	return rest[:n], n > 0
}

func decoratorStart(ls []string, i, ind int) int {
	start := i
	for j := i - 1; j >= 0; j-- {
		t := strings.TrimSpace(ls[j])
		if !strings.HasPrefix(t, "@") || indentOf(ls[j]) != ind {
			break
		}
		start = j
	}
	return start + 1
}

func indentOf(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}
