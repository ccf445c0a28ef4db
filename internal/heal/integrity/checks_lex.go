package integrity

import (
	"slices"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/missing"
	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// The lexical proofs (checks_py.go, checks_jsts.go) prove a test file's
// edit keeps every check where the language has no parser in the
// binary: they read both versions into tokens with a pure-Go lexer, set
// aside the statements that cannot hold a check (imports, and
// declarations of names nothing reads), and require what is left to be
// the same program, token for token, with the same comments. What is set
// aside is judged on its own: a dead declaration's value runs no code, a
// name assigned a call's result keeps the call as a statement, an import
// removed binds a name the file no longer reads, and an import added
// binds a name a report says is not defined (a test library's name only
// from a test library). Anything the lexer cannot read, an edit of the
// layout alone, or any doubt, is no proof: the other rules judge the edit
// as before.

// lexProof is one language's lexical proof.
type lexProof struct {
	lex      func(src string) (lexed, bool)
	asides   func(lx lexed) ([]aside, []binding, bool)
	junction junctionOK
	lib      checkLib
}

// kept reports whether patched keeps every check of orig: both read, the
// same program once their asides are dropped, something set aside
// changed, and the imports kept (importsKept).
func (p lexProof) kept(orig, patched string, reports []contract.BugReport) bool {
	a, okA := p.lex(orig)
	b, okB := p.lex(patched)
	if !okA || !okB {
		return false
	}
	as, ia, okA := p.asides(a)
	bs, ib, okB := p.asides(b)
	if !okA || !okB || !sameKept(a, as, b, bs, p.junction) || !asidesDiffer(a, as, b, bs) {
		return false
	}
	return importsKept(p.lib, ia, ib, b, bs, reports)
}

// The proofs read the tokens of internal/lang's tokenizer.
type (
	lexTok = lang.Token
	lexed  = lang.Tokens
)

const (
	kWord    = lang.TokWord
	kNum     = lang.TokNum
	kStr     = lang.TokStr
	kOp      = lang.TokOp
	kRegex   = lang.TokRegex
	kNewline = lang.TokNewline
	kIndent  = lang.TokIndent
	kDedent  = lang.TokDedent
)

// aside is a run of tokens [lo, hi) a proof sets aside.
type aside struct{ lo, hi int }

// binding is one name an import binds: the local name, and the module
// and member it is bound to ("" for the module itself).
type binding struct{ local, module, member string }

// junctionOK says whether dropping the tokens between two kept ones (p
// before, q after; nil at either end of the file) leaves the program
// read as before.
type junctionOK func(p, q *lexTok) bool

// sameKept reports whether a and b are the same tokens (kind, text and
// preceding line break) once their asides are dropped, with every
// junction the drops make accepted by ok, and have the same comments.
func sameKept(a lexed, as []aside, b lexed, bs []aside, ok junctionOK) bool {
	ka, okA := keptTokens(a.Toks, as, ok)
	kb, okB := keptTokens(b.Toks, bs, ok)
	return okA && okB && slices.Equal(ka, kb) && slices.Equal(a.Comments, b.Comments)
}

// asidesDiffer reports whether what a and b set aside differs: an edit
// that changes only the layout of the rest is not what the proofs are
// for, and the older rules judge it as before.
func asidesDiffer(a lexed, as []aside, b lexed, bs []aside) bool {
	var x, y []lexTok
	for _, s := range as {
		x = append(x, a.Toks[s.lo:s.hi]...)
	}
	for _, s := range bs {
		y = append(y, b.Toks[s.lo:s.hi]...)
	}
	if len(x) != len(y) {
		return true
	}
	for i := range x {
		if x[i].Kind != y[i].Kind || x[i].Text != y[i].Text {
			return true
		}
	}
	return false
}

// keptTokens returns the tokens outside the asides (sorted, not
// overlapping), and false when a junction is not accepted. The token
// after a dropped run has a line break before it when the run had one:
// a statement deleted with its line leaves the next line's break.
func keptTokens(toks []lexTok, as []aside, ok junctionOK) ([]lexTok, bool) {
	for i := range as {
		if as[i].hi <= as[i].lo || i > 0 && as[i].lo < as[i-1].hi {
			return nil, false
		}
	}
	out := make([]lexTok, 0, len(toks))
	next := 0
	for k := 0; k < len(toks); {
		if next >= len(as) || as[next].lo != k {
			out = append(out, toks[k])
			k++
			continue
		}
		end := as[next].hi
		for next++; next < len(as) && as[next].lo == end; next++ {
			end = as[next].hi
		}
		var p, q *lexTok
		if len(out) > 0 {
			p = &out[len(out)-1]
		}
		if end < len(toks) {
			q = &toks[end]
		}
		if ok != nil && !ok(p, q) {
			return nil, false
		}
		if q != nil {
			t := *q
			for j := k; j < end; j++ {
				t.NL = t.NL || toks[j].NL
			}
			out = append(out, t)
			end++
		}
		k = end
	}
	if len(out) > 0 {
		out[0].NL = false // nothing to break from at the start
	}
	return out, true
}

// wordIn reports whether s holds name as a whole word (letters, digits,
// '_' and '$' around it are not part of it).
func wordIn(s, name string) bool {
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], name)
		if k < 0 {
			return false
		}
		a, b := off+k, off+k+len(name)
		if (a == 0 || !isNameByte(s[a-1])) && (b == len(s) || !isNameByte(s[b])) {
			return true
		}
		off = a + 1
	}
	return false
}

func isNameByte(c byte) bool { return lang.IsNameByte(c) }

// nameUses counts the tokens of toks[lo:hi] that are name, and the
// strings and templates that hold it as a word (an f-string or a
// template may read it).
func nameUses(toks []lexTok, lo, hi int, name string) int {
	n := 0
	for k := lo; k < hi && k < len(toks); k++ {
		switch t := &toks[k]; t.Kind {
		case kWord:
			if t.Text == name {
				n++
			}
		case kStr:
			if wordIn(t.Text, name) {
				n++
			}
		}
	}
	return n
}

// checkLib is, per language, the names that stand for a test framework
// or an assertion library, which an import may newly bind only from such
// a library (the language table's, lang.CheatTestLibrary): from anywhere
// else it could swap a check for one that never fails.
type checkLib struct {
	names *lazyre.Regexp
	lang  string
	// from writes an import of module, for the language table to judge.
	from func(module string) string
}

var checkLibs = map[string]checkLib{
	"python": {
		names: lazyre.New(`^(assert\w*|fail\w*|raises|warns|approx|skip\w*|xfail|mark|fixture|param|pytest|unittest|TestCase|mock|patch\w*|Mock|MagicMock|testing|subTest)$`),
		lang:  "python",
		from:  func(m string) string { return "from " + m + " import x" },
	},
	"js": {
		names: lazyre.New(`^(assert\w*|expect\w*|should|chai|test|it|describe|suite|context|specify|before\w*|after\w*|jest|vi|sinon|mock\w*|t)$`),
		lang:  "javascript",
		from:  func(m string) string { return `import x from "` + m + `"` },
	},
}

// fromLibrary reports whether module is a test framework or an
// assertion library.
func (l checkLib) fromLibrary(module string) bool {
	return lang.ByName(l.lang).CheatMatch(lang.CheatTestLibrary, l.from(module)) != ""
}

// importsKept judges the imports an edit changes. Every binding the fix
// removes names something the patched file no longer reads (outside
// its imports, strings included). Every binding it adds names something
// a report says is not defined, not already bound by an import of the
// original, and, for a test framework's or an assertion library's
// name, bound from such a library.
func importsKept(lib checkLib, orig, patched []binding, b lexed, bAsides []aside, reports []contract.BugReport) bool {
	removed, added := minus(orig, patched), minus(patched, orig)
	for _, r := range removed {
		n, last := 0, 0
		for _, s := range bAsides {
			n += nameUses(b.Toks, last, s.lo, r.local)
			last = s.hi
		}
		n += nameUses(b.Toks, last, len(b.Toks), r.local)
		if n > 0 || !reportedName(reports, r.local) {
			return false
		}
	}
	bound := map[string]bool{}
	for _, o := range orig {
		bound[o.local] = true
	}
	for _, a := range added {
		if bound[a.local] || !reportedMissing(reports, a.local) {
			return false
		}
		if lib.names.MatchString(a.local) && !lib.fromLibrary(a.module) {
			return false
		}
	}
	return true
}

// reportedMissing reports whether a report says name is not defined
// (package missing's reading of the toolchains' wordings).
// reportedName reports whether a report's message names name: an
// import is removed only when a report speaks of it (an unused import's
// every linter names it). An import that no report names may be there
// for what importing does (a plugin, a patch, a setting), and removing
// it could change what the tests see.
func reportedName(reports []contract.BugReport, name string) bool {
	for _, r := range reports {
		if wordIn(r.Message, name) {
			return true
		}
	}
	return false
}

func reportedMissing(reports []contract.BugReport, name string) bool {
	for _, r := range reports {
		if a, ok := missing.Of(r.Message); ok && a.Need == missing.Name && a.Name == name {
			return true
		}
	}
	return false
}

// isOp reports whether t is the operator text.
func isOp(t *lexTok, text string) bool { return t != nil && t.Kind == kOp && t.Text == text }
