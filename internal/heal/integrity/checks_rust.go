package integrity

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// rustChecksKept reports whether a fix of a Rust test file provably
// leaves every check as it was (see checks_lex.go): once use items and
// dead bindings are set aside, both versions are the same tokens (every
// #[test], #[should_panic], #[ignore] and other attribute, every
// assert!, assert_eq!, assert_ne!, panic! and its arguments, every test
// function and module) with the same comments. A dead binding is a
// `let [mut] name [: T] = value;` inside a function whose body (its
// closures, nested items and the strings its format macros read) names
// name nowhere else. When the value is made of literals alone the whole
// statement is set aside; otherwise only `let [mut] name`, so renaming
// it `_name` (what rustc proposes) keeps the value, its type and how
// long it lives, where dropping the binding would drop the value at
// once. Use items are judged by importsKept; a glob, a `pub use`, a
// `use … as _` and a use after an attribute stay in the compared
// program.
func rustChecksKept(orig, patched string, reports []contract.BugReport) bool {
	return lexProof{lex: lang.TokensRust, asides: rustAsides, junction: rustJunction, lib: rustCheckLib}.kept(orig, patched, reports)
}

// rustCheckLib is Rust's row of checkLibs: a use item may newly bind an
// assertion's, a panic's or a test attribute's name only from a test
// library the language table knows, which for Rust is none (a crate's
// own macro_rules! is what it knows), so such an import is never proven.
var rustCheckLib = checkLib{
	names: lazyre.New(`^(assert\w*|debug_assert\w*|panic|unreachable|todo|unimplemented|test|should_panic|ignore)$`),
	lang:  "rust",
	from:  func(m string) string { return "use " + m + "::x;" },
}

// rustJunction refuses a drop right after an attribute (a ']' before
// the dropped item or statement): the attribute would then apply to
// what follows.
func rustJunction(p, _ *lexTok) bool {
	return !isOp(p, "]")
}

// rustKeywords are Rust's keywords: never a binding's name.
var rustKeywords = map[string]bool{"as": true, "async": true, "await": true, "break": true, "const": true, "continue": true,
	"crate": true, "dyn": true, "else": true, "enum": true, "extern": true, "false": true, "fn": true, "for": true, "if": true,
	"impl": true, "in": true, "let": true, "loop": true, "match": true, "mod": true, "move": true, "mut": true, "pub": true,
	"ref": true, "return": true, "self": true, "Self": true, "static": true, "struct": true, "super": true, "trait": true,
	"true": true, "type": true, "unsafe": true, "use": true, "where": true, "while": true, "yield": true, "_": true}

// rustStmtStart reports whether a statement or an item may start after
// t: at the file's start, or after ';', '{' or '}'.
func rustStmtStart(t *lexTok) bool {
	return t == nil || isOp(t, ";") || isOp(t, "{") || isOp(t, "}")
}

// rustAsides finds the use items and dead bindings of lx, and the names
// the use items bind.
func rustAsides(lx lexed) ([]aside, []binding, bool) {
	t := lx.Toks
	var as []aside
	var binds []binding
	bodies := rustFnBodies(t)
	prev := func(k int) *lexTok {
		if k == 0 {
			return nil
		}
		return &t[k-1]
	}
	for k := 0; k < len(t); k++ {
		if t[k].Kind != kWord || !rustStmtStart(prev(k)) {
			continue
		}
		switch t[k].Text {
		case "use":
			end := rustStmtEnd(t, k)
			if end < 0 {
				return nil, nil, false
			}
			if bs, ok := rustUse(t[k+1 : end]); ok {
				as = append(as, aside{k, end + 1})
				binds = append(binds, bs...)
			}
			k = end
		case "let":
			body, ok := innermost(bodies, k)
			if !ok {
				continue
			}
			if a, ok := rustDeadLet(t, k, body); ok {
				as = append(as, a)
			}
		}
	}
	slices.SortFunc(as, func(x, y aside) int { return x.lo - y.lo })
	return as, binds, true
}

// rustFnBodies returns the token ranges [open, close] of the function
// bodies of t: the '{' a `fn` signature ends with, to its '}'.
func rustFnBodies(t []lexTok) []aside {
	var out []aside
	for k := range t {
		if t[k].Kind != kWord || t[k].Text != "fn" {
			continue
		}
		depth := 0
		for j := k + 1; j < len(t); j++ {
			if t[j].Kind != kOp {
				continue
			}
			switch t[j].Text {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			case ";":
				if depth == 0 {
					j = len(t) // a declaration without a body
				}
			case "{":
				if depth == 0 {
					if c := closeOf(t, j); c > j {
						out = append(out, aside{j, c})
					}
					j = len(t)
				}
			}
		}
	}
	return out
}

// closeOf returns the index of the bracket closing the one at open, or
// -1.
func closeOf(t []lexTok, open int) int {
	if j, closed := scanTop(t, open+1, ""); closed {
		return j
	}
	return -1
}

// scanTop scans t from k for the operator stop outside the brackets
// opened since k: its index, or, closed, the index of a bracket that
// closes one opened before k; -1 when there is neither.
func scanTop(t []lexTok, k int, stop string) (int, bool) {
	depth := 0
	for j := k; j < len(t); j++ {
		if t[j].Kind != kOp {
			continue
		}
		switch t[j].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth--; depth < 0 {
				return j, true
			}
		case stop:
			if depth == 0 {
				return j, false
			}
		}
	}
	return -1, false
}

// innermost returns the innermost body holding token k.
func innermost(bodies []aside, k int) (aside, bool) {
	var best aside
	found := false
	for _, b := range bodies {
		if b.lo < k && k < b.hi && (!found || b.hi-b.lo < best.hi-best.lo) {
			best, found = b, true
		}
	}
	return best, found
}

// rustStmtEnd returns the index of the ';' ending the statement that
// starts at k (outside brackets), or -1.
func rustStmtEnd(t []lexTok, k int) int {
	if j, closed := scanTop(t, k, ";"); !closed {
		return j
	}
	return -1
}

// rustDeadLet reads the let statement at k in the function body body:
// an aside when it binds one name the body reads nowhere else.
func rustDeadLet(t []lexTok, k int, body aside) (aside, bool) {
	end := rustStmtEnd(t, k)
	if end < 0 || end > body.hi {
		return aside{}, false
	}
	n := k + 1
	if t[n].Kind == kWord && t[n].Text == "mut" {
		n++
	}
	if t[n].Kind != kWord || rustKeywords[t[n].Text] || strings.HasPrefix(t[n].Text, "'") {
		return aside{}, false
	}
	name := t[n].Text
	eq := -1
	for j := n + 1; j < end; j++ {
		if isOp(&t[j], "=") {
			eq = j
			break
		}
	}
	if eq < 0 || (eq != n+1 && !isOp(&t[n+1], ":")) {
		return aside{}, false // a pattern, or a declaration without a value
	}
	for j := eq + 1; j < end; j++ {
		if t[j].Kind == kWord && t[j].Text == "else" {
			return aside{}, false // let-else diverges
		}
	}
	if nameUses(t, body.lo, body.hi+1, name) != 1 {
		return aside{}, false
	}
	if rustLiteral(t[eq+1 : end]) {
		return aside{k, end + 1}, true
	}
	return aside{k, n + 1}, true
}

// rustLiteral reports whether v is made of literals alone: numbers,
// strings, characters, true and false, with operators and brackets
// between them; no name, call, macro or '?'.
func rustLiteral(v []lexTok) bool {
	if len(v) == 0 {
		return false
	}
	for i := range v {
		switch x := &v[i]; x.Kind {
		case kNum, kStr:
		case kWord:
			if x.Text != "true" && x.Text != "false" {
				return false
			}
		case kOp:
			if x.Text == "!" || x.Text == "?" || x.Text == "." || x.Text == "::" || x.Text == "{" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// rustUse reads a use item's tree (the tokens between `use` and ';'):
// the names it binds, each with its path. ok is false for a glob, an
// `as _`, or what it cannot read.
func rustUse(tree []lexTok) ([]binding, bool) {
	var out []binding
	var walk func(i int, prefix []string) (int, bool)
	walk = func(i int, prefix []string) (int, bool) {
		path := slices.Clone(prefix)
		for i < len(tree) {
			x := &tree[i]
			switch {
			case x.Kind == kWord && (!rustKeywords[x.Text] || x.Text == "self" || x.Text == "super" || x.Text == "crate"):
				path = append(path, x.Text)
				i++
				if i < len(tree) && isOp(&tree[i], "::") {
					i++
					continue
				}
				local := path[len(path)-1]
				if local == "self" && len(path) > 1 {
					local = path[len(path)-2]
				}
				if i+1 < len(tree) && tree[i].Text == "as" {
					if tree[i+1].Kind != kWord || tree[i+1].Text == "_" {
						return 0, false
					}
					local, i = tree[i+1].Text, i+2
				}
				if local == "self" || local == "super" || local == "crate" {
					return 0, false
				}
				out = append(out, binding{local: local, module: strings.Join(path[:len(path)-1], "::"), member: path[len(path)-1]})
				return i, true
			case isOp(x, "{"):
				i++
				for i < len(tree) && !isOp(&tree[i], "}") {
					j, ok := walk(i, path)
					if !ok {
						return 0, false
					}
					i = j
					if i < len(tree) && isOp(&tree[i], ",") {
						i++
					}
				}
				if i >= len(tree) {
					return 0, false
				}
				return i + 1, true
			case isOp(x, "::") && len(path) == 0:
				i++ // a path from the crate root: ::std::…
			default:
				return 0, false // a glob, or what this does not read
			}
		}
		return 0, false
	}
	i, ok := walk(0, nil)
	if !ok || i != len(tree) || len(out) == 0 {
		return nil, false
	}
	return out, true
}
