package integrity

import (
	"path"
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
)

// jsChecksKept reports whether a fix of a JavaScript or TypeScript test
// file provably leaves every check as it was (see checks_lex.go): once
// imports and dead declarations are set aside, both versions are the
// same tokens (with the same line breaks, which decide where statements
// end) and the same comments: the same test(), it() and describe()
// registrations with their names, .skip and .only, expect() and assert
// calls with their arguments, and tables. A dead declaration is a
// `const` or `let` whose name nothing else in its block reads (templates
// and strings included); it goes when its value has no call, and gives
// way to its value as a statement when it has (`const x = await f();`
// and `await f();`). Imports (ES `import … from`, `require`) are judged
// by importsKept; an import for its effects alone (`import "./setup"`)
// stays in the compared program. A .jsx or .tsx file is no proof: the
// lexer does not read JSX text.
func jsChecksKept(file, orig, patched string, reports []contract.BugReport) bool {
	switch strings.ToLower(path.Ext(file)) {
	case ".jsx", ".tsx":
		return false
	}
	return lexProof{lex: lang.TokensJS, asides: jsAsides, junction: jsJunction, lib: checkLibs["js"]}.kept(orig, patched, reports)
}

// jsJunction accepts a drop between p and q when the statement before
// it is closed (p is ';' or '{' or nothing) or when p ends an expression
// and q cannot continue one, so no statement is joined to another; and
// never before a string at the start of a body (a "use strict"
// directive would change).
func jsJunction(p, q *lexTok) bool {
	if q != nil && q.Kind == kStr && (p == nil || isOp(p, "{")) {
		return false
	}
	if p == nil || isOp(p, ";") || isOp(p, "{") || q == nil {
		return true
	}
	return jsEnds(p) && jsStarts(q)
}

// jsStarts reports whether q can only start a statement: it cannot
// continue an expression before it.
func jsStarts(q *lexTok) bool {
	switch q.Kind {
	case kWord:
		return !jsInfixWords[q.Text]
	case kNum:
		return true
	case kStr:
		return !strings.HasPrefix(q.Text, "`")
	}
	return isOp(q, "}") || isOp(q, ";")
}

// jsEnds reports whether t can end an expression.
func jsEnds(t *lexTok) bool {
	switch t.Kind {
	case kWord:
		return !jsOperatorWords[t.Text]
	case kNum, kStr, kRegex:
		return true
	case kOp:
		switch t.Text {
		case ")", "]", "}", "++", "--":
			return true
		}
	}
	return false
}

// jsContinues reports whether q, after a line break, continues the
// expression before it (no semicolon is inserted).
func jsContinues(q *lexTok) bool {
	switch q.Kind {
	case kOp:
		switch q.Text {
		case "!", "~", "++", "--", "{", "}", ";", "@":
			return false
		}
		return true
	case kStr:
		return strings.HasPrefix(q.Text, "`") // a tagged template
	case kWord:
		return jsInfixWords[q.Text]
	}
	return false
}

var (
	// jsInfixWords continue an expression.
	jsInfixWords = map[string]bool{"in": true, "instanceof": true, "as": true, "satisfies": true, "of": true}
	// jsOperatorWords expect an operand after them.
	jsOperatorWords = map[string]bool{"typeof": true, "new": true, "delete": true, "void": true, "in": true, "instanceof": true,
		"await": true, "yield": true, "return": true, "throw": true, "case": true, "else": true, "do": true, "of": true,
		"as": true, "satisfies": true, "extends": true, "export": true, "default": true, "import": true, "const": true, "let": true, "var": true}
	// jsReserved are the reserved words: never a variable's name, and,
	// but for those in jsValueWords, never in a dead declaration's value.
	jsReserved = map[string]bool{"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
		"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true, "export": true, "extends": true,
		"false": true, "finally": true, "for": true, "function": true, "if": true, "import": true, "in": true, "instanceof": true,
		"new": true, "null": true, "return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
		"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true, "yield": true, "let": true,
		"static": true, "await": true, "implements": true, "interface": true, "package": true, "private": true,
		"protected": true, "public": true, "undefined": true, "arguments": true, "eval": true}
	// jsValueWords may be in a dead declaration's value.
	jsValueWords = map[string]bool{"true": true, "false": true, "null": true, "undefined": true, "this": true,
		"typeof": true, "void": true, "const": true}
)

// jsCand is a `const` or `let` declaration of one name.
type jsCand struct {
	name   string
	lo, hi int // the statement's tokens
	eq     int // its '=', -1 without a value
	scope  [2]int
	pure   bool
}

// jsAsides finds the imports and dead declarations of lx, and the names
// the imports bind.
func jsAsides(lx lexed) ([]aside, []binding, bool) {
	t := lx.Toks
	encl := make([]int, len(t)) // the innermost open bracket around each token, -1 for none
	match := map[int]int{}
	var stack []int
	for k := range t {
		encl[k] = -1
		if len(stack) > 0 {
			encl[k] = stack[len(stack)-1]
		}
		if t[k].Kind != kOp {
			continue
		}
		switch t[k].Text {
		case "(", "[", "{":
			stack = append(stack, k)
		case ")", "]", "}":
			if len(stack) == 0 {
				return nil, nil, false
			}
			match[stack[len(stack)-1]] = k
			stack = stack[:len(stack)-1]
		}
	}
	var as []aside
	var binds []binding
	var cands []jsCand
	// eval and with reach variables by name; a script's (not a
	// module's) top-level names are the other scripts' too.
	frames, module := false, false
	for k := range t {
		if t[k].Kind != kWord {
			continue
		}
		switch t[k].Text {
		case "eval":
			frames = true
		case "with":
			frames = frames || k+1 < len(t) && isOp(&t[k+1], "(")
		case "import", "export", "require", "module", "exports":
			module = true
		}
	}
	for k := 0; k < len(t); k++ {
		w := &t[k]
		if w.Kind != kWord || !jsStatementAt(t, k) {
			continue
		}
		switch w.Text {
		case "import":
			if encl[k] != -1 {
				continue
			}
			if end, bs, ok := jsImport(t, k); ok {
				as = append(as, aside{k, end})
				binds = append(binds, bs...)
				k = end - 1
			}
		case "const", "let", "var":
			if e := encl[k]; e != -1 && t[e].Text != "{" {
				continue
			}
			if end, bs, ok := jsRequire(t, k); ok {
				as = append(as, aside{k, end})
				binds = append(binds, bs...)
				k = end - 1
				continue
			}
			if w.Text == "var" {
				continue // its scope is the function's, or the global object
			}
			c, ok := jsDecl(t, k)
			if !ok {
				continue
			}
			if e := encl[k]; e != -1 {
				c.scope = [2]int{e, match[e] + 1}
			} else if c.scope = [2]int{0, len(t)}; !module {
				continue
			}
			cands = append(cands, c)
		}
	}
	if !frames {
		for _, c := range cands {
			if nameUses(t, c.scope[0], c.scope[1], c.name) > 1 { // its own name is one
				continue
			}
			switch {
			case c.pure:
				as = append(as, aside{c.lo, c.hi})
			case c.eq > 0 && jsExpressionStatement(&t[c.eq+1]):
				as = append(as, aside{c.lo, c.eq + 1}) // `const x =`: the value stays, as a statement
			}
		}
	}
	slices.SortFunc(as, func(x, y aside) int { return x.lo - y.lo })
	return as, binds, true
}

// jsStatementAt reports whether a statement may start at token k: the
// first token, after ';', '{' or '}', or on a new line after what ends an
// expression (not after an operator, a '.', export or declare).
func jsStatementAt(t []lexTok, k int) bool {
	if k == 0 {
		return true
	}
	p := &t[k-1]
	if isOp(p, ";") || isOp(p, "{") || isOp(p, "}") {
		return true
	}
	return t[k].NL && jsEnds(p) && !(p.Kind == kWord && p.Text == "declare")
}

// jsExpressionStatement reports whether a statement starting with t is
// read as an expression (not a block, a declaration or a function).
func jsExpressionStatement(t *lexTok) bool {
	if isOp(t, "{") {
		return false
	}
	if t.Kind == kWord {
		switch t.Text {
		case "function", "class", "let", "const", "var", "async", "import":
			return false
		}
	}
	return true
}

// jsDecl reads a declaration `const|let name [: type] [= value]` at k,
// up to its end: a ';', a line break where no expression continues, or
// the closing bracket of its block. A declaration of several names, or
// of a pattern, is not read.
func jsDecl(t []lexTok, k int) (jsCand, bool) {
	n := k + 1
	if n >= len(t) || t[n].Kind != kWord || jsReserved[t[n].Text] || strings.HasPrefix(t[n].Text, "#") {
		return jsCand{}, false
	}
	c := jsCand{name: t[n].Text, lo: k, eq: -1, pure: true}
	j := n + 1
	if j < len(t) && isOp(&t[j], ":") { // a type
		depth := 0
	typ:
		for j++; j < len(t); j++ {
			if depth == 0 && (isOp(&t[j], "=") || isOp(&t[j], ";") || isOp(&t[j], ",") || t[j].NL && !jsContinues(&t[j]) && jsEnds(&t[j-1])) {
				break
			}
			switch t[j].Text { // only an operator token is a bare bracket; '<' and '>' enclose a type's arguments
			case "(", "[", "{", "<":
				depth++
			case ")", "]", "}", ">", ">>", ">>>":
				if depth -= len(t[j].Text); depth < 0 {
					break typ
				}
			}
		}
		// The type is dropped with the declaration: it must hold no
		// call, nothing a misread could have taken for a type.
		if depth != 0 || !jsPure(t[n+2:j]) {
			return jsCand{}, false
		}
	}
	if j < len(t) && isOp(&t[j], "=") {
		c.eq = j
		j++
	}
	start := j
	depth := 0
	for ; j < len(t); j++ {
		if depth == 0 {
			switch {
			case isOp(&t[j], ";"):
				c.hi = j + 1
			case isOp(&t[j], ","):
				return jsCand{}, false
			case isOp(&t[j], ")") || isOp(&t[j], "]") || isOp(&t[j], "}"):
				c.hi = j
			case j > start && t[j].NL && jsEnds(&t[j-1]) && !jsContinues(&t[j]):
				c.hi = j
			case j == start && c.eq < 0 && t[j].NL:
				c.hi = j // `let x` and a new line
			}
			if c.hi > 0 {
				break
			}
		}
		switch t[j].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		}
	}
	if c.hi == 0 {
		c.hi = len(t)
	}
	end := c.hi
	if end > 0 && isOp(&t[end-1], ";") {
		end--
	}
	if c.eq < 0 {
		return c, end == n+1 || end == start // no value; a type at most
	}
	if end <= c.eq+1 {
		return jsCand{}, false
	}
	c.pure = jsPure(t[c.eq+1 : end])
	return c, true
}

// jsPure reports whether evaluating a value runs no code of the test's:
// no call (a '(' after an operand, a tagged template), no new, no
// assignment or update, no spread, no template substitution, no reserved
// word but literals, this, typeof, void and `as const`, and no name of a
// test framework or an assertion library.
func jsPure(v []lexTok) bool {
	for i := range v {
		t := &v[i]
		switch t.Kind {
		case kWord:
			if jsReserved[t.Text] && !jsValueWords[t.Text] || checkLibs["js"].names.MatchString(t.Text) {
				return false // a statement, or a check (chai's x.should.be.ok checks by reading)
			}
		case kStr:
			if strings.HasPrefix(t.Text, "`") && (i > 0 && jsEnds(&v[i-1]) || strings.Contains(t.Text, "${")) {
				return false
			}
		case kOp:
			switch t.Text {
			case "(":
				if i > 0 {
					if p := &v[i-1]; p.Kind != kOp || jsEnds(p) || p.Text == ">" || p.Text == "!" || p.Text == "?." {
						return false
					}
				}
			case "=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??=",
				"++", "--", "...", "=>":
				return false
			}
		}
	}
	return true
}

// jsRequire reads `const|let|var name = require("m")` or `const { a, b:
// c } = require("m")` at k, ended by ';' or a line break.
func jsRequire(t []lexTok, k int) (int, []binding, bool) {
	j := k + 1
	var names [][2]string // local, member
	switch {
	case j < len(t) && t[j].Kind == kWord && !jsReserved[t[j].Text]:
		names = append(names, [2]string{t[j].Text, ""})
		j++
	case j < len(t) && isOp(&t[j], "{"):
		for j++; j < len(t) && !isOp(&t[j], "}"); {
			if t[j].Kind != kWord || jsReserved[t[j].Text] {
				return 0, nil, false
			}
			member, local := t[j].Text, t[j].Text
			j++
			if j+1 < len(t) && isOp(&t[j], ":") && t[j+1].Kind == kWord && !jsReserved[t[j+1].Text] {
				local, j = t[j+1].Text, j+2
			}
			names = append(names, [2]string{local, member})
			if j < len(t) && isOp(&t[j], ",") {
				j++
			} else if j < len(t) && !isOp(&t[j], "}") {
				return 0, nil, false
			}
		}
		j++
	default:
		return 0, nil, false
	}
	if j+4 >= len(t) || !isOp(&t[j], "=") || t[j+1].Text != "require" || !isOp(&t[j+2], "(") ||
		t[j+3].Kind != kStr || strings.HasPrefix(t[j+3].Text, "`") || !isOp(&t[j+4], ")") {
		return 0, nil, false
	}
	mod := t[j+3].Text[1 : len(t[j+3].Text)-1]
	end, ok := jsStatementEnd(t, j+5)
	if !ok || len(names) == 0 {
		return 0, nil, false
	}
	var out []binding
	for _, n := range names {
		out = append(out, binding{local: n[0], module: mod, member: n[1]})
	}
	return end, out, true
}

// jsImport reads an ES import at k that binds names: `import d, { a, b
// as c, type T } from "m"`, `import * as ns from "m"`, `import type …`,
// with import attributes; an import for its effects alone is not read.
func jsImport(t []lexTok, k int) (int, []binding, bool) {
	j := k + 1
	if j < len(t) && t[j].Text == "type" && j+1 < len(t) && t[j+1].Text != "from" && !isOp(&t[j+1], ",") {
		j++ // type-only
	}
	type name struct{ local, member string }
	var names []name
	if j < len(t) && t[j].Kind == kWord {
		names = append(names, name{t[j].Text, "default"})
		j++
		if j < len(t) && isOp(&t[j], ",") {
			j++
		}
	}
	switch {
	case j+2 < len(t) && isOp(&t[j], "*") && t[j+1].Text == "as" && t[j+2].Kind == kWord:
		names = append(names, name{t[j+2].Text, "*"})
		j += 3
	case j < len(t) && isOp(&t[j], "{"):
		for j++; j < len(t) && !isOp(&t[j], "}"); {
			if t[j].Text == "type" && j+1 < len(t) && (t[j+1].Kind == kWord || t[j+1].Kind == kStr) && t[j+1].Text != "as" {
				j++
			}
			if t[j].Kind != kWord && t[j].Kind != kStr {
				return 0, nil, false
			}
			member, local := t[j].Text, t[j].Text
			j++
			if j+1 < len(t) && t[j].Text == "as" && t[j+1].Kind == kWord {
				local, j = t[j+1].Text, j+2
			}
			if strings.HasPrefix(local, `"`) || strings.HasPrefix(local, "'") {
				return 0, nil, false
			}
			names = append(names, name{local, member})
			if j < len(t) && isOp(&t[j], ",") {
				j++
			} else if j < len(t) && !isOp(&t[j], "}") {
				return 0, nil, false
			}
		}
		j++
	}
	if len(names) == 0 || j+1 >= len(t) || t[j].Text != "from" || t[j+1].Kind != kStr || strings.HasPrefix(t[j+1].Text, "`") {
		return 0, nil, false
	}
	mod := t[j+1].Text[1 : len(t[j+1].Text)-1]
	j += 2
	if j+1 < len(t) && (t[j].Text == "with" || t[j].Text == "assert") && isOp(&t[j+1], "{") && !t[j].NL {
		j += 2
		for j < len(t) && !isOp(&t[j], "}") {
			j++
		}
		j++
	}
	end, ok := jsStatementEnd(t, j)
	if !ok {
		return 0, nil, false
	}
	var out []binding
	for _, n := range names {
		out = append(out, binding{local: n.local, module: mod, member: n.member})
	}
	return end, out, true
}

// jsStatementEnd returns the end of a statement whose last token is
// before j: past a ';' at j, or j when a line break, a '}' or the end of
// the file follows.
func jsStatementEnd(t []lexTok, j int) (int, bool) {
	switch {
	case j >= len(t):
		return len(t), j == len(t)
	case isOp(&t[j], ";"):
		return j + 1, true
	case t[j].NL && !jsContinues(&t[j]), isOp(&t[j], "}"):
		return j, true
	}
	return 0, false
}
