package integrity

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
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
	return lexProof{lex: lang.TokensPython, asides: pyAsides, junction: pyJunction, lib: checkLibs["python"]}.kept(orig, patched, reports)
}

// pyJunction refuses a drop at the start of a block or of the file
// before a string: the string would become, or stop being, a docstring
// (and its doctests).
func pyJunction(p, q *lexTok) bool {
	return !((p == nil || p.Kind == kIndent) && q != nil && q.Kind == kStr)
}

// pyKeywordSet are Python's keywords: never a variable's name.
var pyKeywordSet = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true,
	"in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true}

// pyFrameWords reach a function's local variables by name: a function
// that uses one has no dead statement.
var pyFrameWords = []string{"locals", "vars", "eval", "exec", "globals", "f_locals", "_getframe", "currentframe", "settrace"}

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
	t := lx.Toks
	var scopes []pyScope
	var stack []int // open scopes
	var cands []pyCand
	var as []aside
	var binds []binding
	header := byte(0) // the kind of block the last line opens, 0 when it opens none
	headerLo := 0
	for k := 0; k < len(t); {
		switch t[k].Kind {
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
		for k < len(t) && t[k].Kind != kNewline {
			k++
		}
		if k == len(t) {
			return nil, nil, false
		}
		line := t[lo:k]
		k++ // past NEWLINE
		header = 0
		if last := line[len(line)-1]; isOp(&last, ":") && k < len(t) && t[k].Kind == kIndent {
			header, headerLo = 'o', lo
			switch {
			case line[0].Text == "def" || line[0].Text == "async" && len(line) > 1 && line[1].Text == "def":
				header = 'd'
			case line[0].Text == "class":
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
		if fn < 0 || len(line) < 3 || line[0].Kind != kWord || !isOp(&line[1], "=") || pyKeywordSet[line[0].Text] {
			continue
		}
		name := line[0].Text
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
		if toks[i].Kind != kWord {
			continue
		}
		for _, w := range pyFrameWords {
			if toks[i].Text == w {
				return true
			}
		}
	}
	return false
}

func hasTopSemicolon(line []lexTok) bool {
	depth := 0
	for i := range line {
		if line[i].Kind != kOp {
			continue
		}
		switch line[i].Text {
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
		switch t.Kind {
		case kOp:
			switch t.Text {
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
			switch t.Text {
			case "for", "in", "await", "yield", "lambda":
				pure = false
			}
			if checkLibs["python"].names.MatchString(t.Text) {
				pure = false // a check, or a test library
			}
		case kStr:
			if strings.ContainsRune(t.Text, '{') && strings.ContainsAny(t.Text[:strings.IndexAny(t.Text, `"'`)], "fFtT") {
				pure = false
			}
		}
	}
	return pure, true
}

// opensOperand reports whether an operand starts after t (an opening
// bracket, a comma, a colon, an operator).
func opensOperand(t *lexTok) bool {
	return t.Kind == kOp && t.Text != ")" && t.Text != "]" && t.Text != "}"
}

// callable reports whether a '(' after t calls it: t ends an operand.
func callable(t *lexTok) bool {
	switch t.Kind {
	case kWord:
		return !pyKeywordSet[t.Text] || t.Text == "None" || t.Text == "True" || t.Text == "False"
	case kStr, kNum:
		return true
	case kOp:
		return t.Text == ")" || t.Text == "]" || t.Text == "}"
	}
	return false
}

// pyImport reads an import line: `import a.b [as c], …` or `from m
// import n [as o], …` (parenthesised or not). A star import and a
// __future__ import are not read: they stay in the compared program.
func pyImport(line []lexTok) ([]binding, bool) {
	if line[0].Kind != kWord {
		return nil, false
	}
	var out []binding
	switch line[0].Text {
	case "import":
		for i := 1; i < len(line); {
			mod, j := pyDotted(line, i)
			if mod == "" {
				return nil, false
			}
			local := strings.SplitN(mod, ".", 2)[0]
			if j+1 < len(line) && line[j].Text == "as" && line[j+1].Kind == kWord {
				local, j = line[j+1].Text, j+2
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
			dots += line[i].Text
			i++
		}
		mod, j := pyDotted(line, i)
		mod = dots + mod
		if mod == "" || mod == "__future__" || j >= len(line) || line[j].Text != "import" {
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
			if line[j].Kind != kWord || pyKeywordSet[line[j].Text] {
				return nil, false // a star import among them
			}
			name, local := line[j].Text, line[j].Text
			j++
			if j+1 < len(line) && line[j].Text == "as" && line[j+1].Kind == kWord {
				local, j = line[j+1].Text, j+2
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
	for i < len(line) && line[i].Kind == kWord && !pyKeywordSet[line[i].Text] {
		parts = append(parts, line[i].Text)
		i++
		if i+1 < len(line) && isOp(&line[i], ".") && line[i+1].Kind == kWord {
			i++
			continue
		}
		break
	}
	return strings.Join(parts, "."), i
}
