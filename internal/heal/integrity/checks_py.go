package integrity

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// pyChecksKept reports whether a fix of a Python test file provably
// leaves every check as it was (see checks_lex.go): once imports and
// dead statements are set aside, both versions are the same tokens
// (blocks, strings, decorators, markers, parametrize tables and
// assertions included) with the same comments. A dead statement is a
// whole line `name = value` inside a function, where the function (its
// nested functions and f-strings included) never reads name otherwise
// and never reaches its frame (locals(), vars(), eval…): the line goes
// when the value has no call, and gives way to its value as a statement
// when it has (`x = f()` and `f()`). Imports are judged by importsKept.
func pyChecksKept(orig, patched string, reports []contract.BugReport) bool {
	return lexProof{lex: pyLex, asides: pyAsides, junction: pyJunction, lib: checkLibs["python"]}.kept(orig, patched, reports)
}

// pyJunction refuses a drop at the start of a block or of the file
// before a string: the string would become, or stop being, a docstring
// (and its doctests).
func pyJunction(p, q *lexTok) bool {
	return !((p == nil || p.kind == kIndent) && q != nil && q.kind == kStr)
}

// pyOps are Python's operators, longest first.
var pyOps = []string{"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
	"+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "=", "!"}

// pyKeywordSet are Python's keywords: never a variable's name.
var pyKeywordSet = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true,
	"in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true}

// pyFrameWords reach a function's local variables by name: a function
// that uses one has no dead statement.
var pyFrameWords = []string{"locals", "vars", "eval", "exec", "globals", "f_locals", "_getframe", "currentframe", "settrace"}

// pyLex reads Python source into tokens, with NEWLINE at the end of each
// logical line and INDENT and DEDENT around blocks, as Python's own
// tokenizer does. ok is false for what it cannot read: an unterminated
// string, unbalanced brackets, an inconsistent dedent, a stray byte.
func pyLex(src string) (lexed, bool) {
	var lx lexed
	indents := []int{0}
	depth := 0
	lineStart, pending := true, false
	emit := func(k lexKind, text string) {
		lx.toks = append(lx.toks, lexTok{kind: k, text: text})
		pending = true
	}
	for i := 0; i < len(src); {
		if len(lx.toks) > maxLexTokens {
			return lx, false
		}
		if lineStart && depth == 0 {
			col, j := 0, i
		measure:
			for ; j < len(src); j++ {
				switch src[j] {
				case ' ':
					col++
				case '\t':
					col = col/8*8 + 8
				case '\f':
					col = 0
				default:
					break measure
				}
			}
			i, lineStart = j, false
			if j == len(src) || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
				lineStart = true // a blank line, or one holding only a comment
				if j < len(src) && src[j] == '#' {
					end := lineEnd(src, j)
					lx.comments = append(lx.comments, strings.TrimRight(src[j:end], " \t\r"))
					i = end
				}
				if i < len(src) {
					i++ // its line break
				}
				continue
			}
			switch top := indents[len(indents)-1]; {
			case col > top:
				indents = append(indents, col)
				lx.toks = append(lx.toks, lexTok{kind: kIndent})
			case col < top:
				for col < indents[len(indents)-1] {
					indents = indents[:len(indents)-1]
					lx.toks = append(lx.toks, lexTok{kind: kDedent})
				}
				if col != indents[len(indents)-1] {
					return lx, false
				}
			}
		}
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			i++
		case c == '\n' || c == '\r':
			if c == '\r' && i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			i++
			if depth == 0 {
				if pending {
					lx.toks = append(lx.toks, lexTok{kind: kNewline})
					pending = false
				}
				lineStart = true
			}
		case c == '\\':
			switch {
			case strings.HasPrefix(src[i:], "\\\n"):
				i += 2
			case strings.HasPrefix(src[i:], "\\\r\n"):
				i += 3
			default:
				return lx, false
			}
		case c == '#':
			end := lineEnd(src, i)
			lx.comments = append(lx.comments, strings.TrimRight(src[i:end], " \t\r"))
			i = end
		case c == '"' || c == '\'':
			end, ok := pyString(src, i, false)
			if !ok {
				return lx, false
			}
			emit(kStr, src[i:end])
			i = end
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			end := numberEnd(src, i)
			emit(kNum, src[i:end])
			i = end
		case isWordByte(c) || c >= 0x80:
			j := i
			for j < len(src) && (isWordByte(src[j]) || src[j] >= 0x80) {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && pyPrefix(src[i:j]) {
				end, ok := pyString(src, j, strings.ContainsAny(src[i:j], "fFtT"))
				if !ok {
					return lx, false
				}
				emit(kStr, src[i:end])
				i = end
				continue
			}
			emit(kWord, src[i:j])
			i = j
		default:
			op := opAt(src, i, pyOps)
			if op == "" {
				return lx, false
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth--; depth < 0 {
					return lx, false
				}
			}
			emit(kOp, op)
			i += len(op)
		}
	}
	if depth != 0 {
		return lx, false
	}
	if pending {
		lx.toks = append(lx.toks, lexTok{kind: kNewline})
	}
	for len(indents) > 1 {
		indents = indents[:len(indents)-1]
		lx.toks = append(lx.toks, lexTok{kind: kDedent})
	}
	return lx, len(lx.toks) <= maxLexTokens
}

// pyPrefix reports whether w is a string prefix (r, b, f, u, t and their
// pairs, any case).
func pyPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt":
		return true
	}
	return false
}

// pyString returns the end of the string literal whose quote is at q;
// fmt reads replacement fields ({…},
// where any quote may nest, as Python 3.12 allows).
func pyString(src string, q int, fmt bool) (int, bool) {
	quote := src[q]
	triple := strings.HasPrefix(src[q:], strings.Repeat(string(quote), 3))
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\\':
			j += 2
			continue
		case triple && c == quote && strings.HasPrefix(src[j:], strings.Repeat(string(quote), 3)):
			return j + 3, true
		case !triple && c == quote:
			return j + 1, true
		case !triple && (c == '\n' || c == '\r'):
			return 0, false
		case fmt && c == '{':
			if j+1 < len(src) && src[j+1] == '{' {
				j += 2
				continue
			}
			end, ok := pyField(src, j+1)
			if !ok {
				return 0, false
			}
			j = end
			continue
		}
		j++
	}
	return 0, false
}

// pyField returns the end of an f-string's replacement field whose body
// starts at i: past its closing '}'.
func pyField(src string, i int) (int, bool) {
	depth := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			k := i
			for k > 0 && isWordByte(src[k-1]) && i-k < 2 {
				k--
			}
			end, ok := pyString(src, i, k < i && pyPrefix(src[k:i]) && strings.ContainsAny(src[k:i], "fFtT"))
			if !ok {
				return 0, false
			}
			i = end
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '}':
			if depth == 0 {
				return i + 1, true
			}
			depth--
		}
		i++
	}
	return 0, false
}

// pyScope is one block a compound statement opens.
type pyScope struct {
	kind   byte // 'd' a function, 'c' a class, 'o' any other block
	lo, hi int  // its tokens: its header's first to its DEDENT
}

// pyCand is a line `name = value` inside a function.
type pyCand struct {
	scope  int // the function's index in scopes
	name   string
	lo, hi int // the line's tokens, NEWLINE included
	pure   bool
}

// pyAsides finds the imports and dead statements of lx, and the names the
// imports bind; ok is false when the blocks cannot be read.
func pyAsides(lx lexed) ([]aside, []binding, bool) {
	t := lx.toks
	var scopes []pyScope
	var stack []int // open scopes
	var cands []pyCand
	var as []aside
	var binds []binding
	header := byte(0) // the kind of block the last line opens, 0 when it opens none
	headerLo := 0
	for k := 0; k < len(t); {
		switch t[k].kind {
		case kIndent:
			if header == 0 {
				return nil, nil, false
			}
			scopes = append(scopes, pyScope{kind: header, lo: headerLo})
			stack = append(stack, len(scopes)-1)
			header = 0
			k++
			continue
		case kDedent:
			if len(stack) == 0 {
				return nil, nil, false
			}
			scopes[stack[len(stack)-1]].hi = k
			stack = stack[:len(stack)-1]
			k++
			continue
		}
		lo := k
		for k < len(t) && t[k].kind != kNewline {
			k++
		}
		if k == len(t) {
			return nil, nil, false
		}
		line := t[lo:k]
		k++ // past NEWLINE
		header = 0
		if last := line[len(line)-1]; isOp(&last, ":") && k < len(t) && t[k].kind == kIndent {
			header, headerLo = 'o', lo
			switch {
			case line[0].text == "def" || line[0].text == "async" && len(line) > 1 && line[1].text == "def":
				header = 'd'
			case line[0].text == "class":
				header = 'c'
			}
		}
		if header != 0 || hasTopSemicolon(line) {
			continue
		}
		if bs, ok := pyImport(line); ok {
			as = append(as, aside{lo, k})
			binds = append(binds, bs...)
			continue
		}
		fn := -1
		for s := len(stack) - 1; s >= 0; s-- {
			if sc := scopes[stack[s]]; sc.kind != 'o' {
				if sc.kind == 'd' {
					fn = stack[s]
				}
				break
			}
		}
		if fn < 0 || len(line) < 3 || line[0].kind != kWord || !isOp(&line[1], "=") || pyKeywordSet[line[0].text] {
			continue
		}
		name := line[0].text
		if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") {
			continue // read by the runtime or the test runner (__tracebackhide__)
		}
		pure, ok := pyValue(line[2:])
		if !ok {
			continue
		}
		cands = append(cands, pyCand{scope: fn, name: name, lo: lo, hi: k, pure: pure})
	}
	if len(stack) != 0 {
		return nil, nil, false
	}
	for _, c := range cands {
		sc := scopes[c.scope]
		if frameReached(t[sc.lo:sc.hi]) {
			continue
		}
		uses := nameUses(t, sc.lo, sc.hi, c.name)
		for _, d := range cands {
			if d.scope == c.scope && d.name == c.name {
				uses-- // its own assignments
			}
		}
		if uses > 0 {
			continue
		}
		if c.pure {
			as = append(as, aside{c.lo, c.hi})
		} else {
			as = append(as, aside{c.lo, c.lo + 2}) // `name =`: the value stays, as a statement
		}
	}
	slices.SortFunc(as, func(x, y aside) int { return x.lo - y.lo })
	return as, binds, true
}

// frameReached reports whether toks use a word that reaches local
// variables by name.
func frameReached(toks []lexTok) bool {
	for i := range toks {
		if toks[i].kind != kWord {
			continue
		}
		for _, w := range pyFrameWords {
			if toks[i].text == w {
				return true
			}
		}
	}
	return false
}

func hasTopSemicolon(line []lexTok) bool {
	depth := 0
	for i := range line {
		if line[i].kind != kOp {
			continue
		}
		switch line[i].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ";":
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

// pyValue reads the value of an assignment: ok is false when it is not
// one value (another `=`, a walrus); pure is true when evaluating it
// runs no code of the test's: no call, no iteration (a comprehension, an
// unpacking, `in`), no await or yield, no f-string field, no name of a
// test library.
func pyValue(v []lexTok) (pure, ok bool) {
	pure = true
	for i := range v {
		t := &v[i]
		switch t.kind {
		case kOp:
			switch t.text {
			case "=", ":=":
				return false, false
			case "*", "**":
				if i == 0 || opensOperand(&v[i-1]) {
					pure = false // an unpacking iterates
				}
			case "(":
				if i > 0 && callable(&v[i-1]) {
					pure = false
				}
			}
		case kWord:
			switch t.text {
			case "for", "in", "await", "yield", "lambda":
				pure = false
			}
			if checkLibs["python"].names.MatchString(t.text) {
				pure = false // a check, or a test library
			}
		case kStr:
			if strings.ContainsRune(t.text, '{') && strings.ContainsAny(t.text[:strings.IndexAny(t.text, `"'`)], "fFtT") {
				pure = false
			}
		}
	}
	return pure, true
}

// opensOperand reports whether an operand starts after t (an opening
// bracket, a comma, a colon, an operator).
func opensOperand(t *lexTok) bool {
	return t.kind == kOp && t.text != ")" && t.text != "]" && t.text != "}"
}

// callable reports whether a '(' after t calls it: t ends an operand.
func callable(t *lexTok) bool {
	switch t.kind {
	case kWord:
		return !pyKeywordSet[t.text] || t.text == "None" || t.text == "True" || t.text == "False"
	case kStr, kNum:
		return true
	case kOp:
		return t.text == ")" || t.text == "]" || t.text == "}"
	}
	return false
}

// pyImport reads an import line: `import a.b [as c], …` or `from m
// import n [as o], …` (parenthesised or not). A star import and a
// __future__ import are not read: they stay in the compared program.
func pyImport(line []lexTok) ([]binding, bool) {
	if line[0].kind != kWord {
		return nil, false
	}
	var out []binding
	switch line[0].text {
	case "import":
		for i := 1; i < len(line); {
			mod, j := pyDotted(line, i)
			if mod == "" {
				return nil, false
			}
			local := strings.SplitN(mod, ".", 2)[0]
			if j+1 < len(line) && line[j].text == "as" && line[j+1].kind == kWord {
				local, j = line[j+1].text, j+2
			}
			out = append(out, binding{local: local, module: mod})
			if j == len(line) {
				return out, true
			}
			if !isOp(&line[j], ",") {
				return nil, false
			}
			i = j + 1
		}
		return nil, false
	case "from":
		i, dots := 1, ""
		for i < len(line) && (isOp(&line[i], ".") || isOp(&line[i], "...")) {
			dots += line[i].text
			i++
		}
		mod, j := pyDotted(line, i)
		mod = dots + mod
		if mod == "" || mod == "__future__" || j >= len(line) || line[j].text != "import" {
			return nil, false
		}
		j++
		paren := j < len(line) && isOp(&line[j], "(")
		if paren {
			j++
		}
		for j < len(line) {
			if paren && isOp(&line[j], ")") && j == len(line)-1 {
				return out, len(out) > 0
			}
			if line[j].kind != kWord || pyKeywordSet[line[j].text] {
				return nil, false // a star import among them
			}
			name, local := line[j].text, line[j].text
			j++
			if j+1 < len(line) && line[j].text == "as" && line[j+1].kind == kWord {
				local, j = line[j+1].text, j+2
			}
			out = append(out, binding{local: local, module: mod, member: name})
			switch {
			case j == len(line):
				return out, !paren
			case isOp(&line[j], ","):
				j++
			case !(paren && isOp(&line[j], ")")):
				return nil, false
			}
		}
		return out, !paren && len(out) > 0
	}
	return nil, false
}

// pyDotted reads a dotted name at i; "" when there is none.
func pyDotted(line []lexTok, i int) (string, int) {
	var parts []string
	for i < len(line) && line[i].kind == kWord && !pyKeywordSet[line[i].text] {
		parts = append(parts, line[i].text)
		i++
		if i+1 < len(line) && isOp(&line[i], ".") && line[i+1].kind == kWord {
			i++
			continue
		}
		break
	}
	return strings.Join(parts, "."), i
}
