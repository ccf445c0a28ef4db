package logparse

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// Row is one single-line format of the table: a named regular expression
// over a cleaned log line, and how to turn a match into a report. Rows hold
// data only; the multi-line formats (tracebacks, rustc blocks, test
// runners) are handlers in the family files, and are listed in the table
// too, with Pattern empty.
//
// The pattern's named groups are file, line, col, sev, code, msg and rule.
type Row struct {
	// Name is unique in the table, and names the row's fixture case(s).
	Name string
	// Family is the tool family: go, c, rust, java, python, ts, js, shell,
	// make, ci.
	Family string
	// Tool is copied to BugReport.Tool.
	Tool string
	// Hint is a substring every matching line contains; lines without it
	// skip the regular expression. "a|b" means either. Empty means no
	// prefilter.
	Hint string
	// Pattern is the regular expression; empty for a handler row.
	Pattern string
	// Classify maps a match to an error type; ok false drops the match
	// (notes, warnings that did not fail the build). Nil uses Type.
	Classify func(m *match) (contract.ErrorType, bool)
	// Type is the error type when Classify is nil.
	Type contract.ErrorType
	// Confidence is the base confidence of a report from this row.
	Confidence float64
	// Doc says in one line what the row reads.
	Doc string
	// Generic rows are tried after all the others, whatever the order of
	// registration: they read shapes that many tools share.
	Generic bool
	// ErrWord rows are only tried on lines that contain "rror" (error,
	// Error, ERROR), a test computed once per line.
	ErrWord bool
	// Pre, when set, replaces Hint: a cheap test of the line's shape
	// (its start, say) before the regular expression.
	Pre func(s string) bool
	// Detail, when set, reads the lines after a match that belong to its
	// report (javac's source line and caret): the report is held until
	// Detail turns a line down, which is then read as usual. n counts the
	// lines Detail has taken, at most maxDetail.
	Detail func(f *finding, s string, n int) bool

	// re is compiled on first use, so that a start costs nothing for rows
	// a log never reaches. Copies of a Row share it.
	re    *lazyre.Regexp
	hints []needle
	need  byte
}

// match is a row's match on one line.
type match struct {
	p    *parser
	row  *Row
	line string
	g    []string
	rule string // set by Classify to override the code group
	// relocate, set by Classify, moves the report to another location.
	relocate *finding
}

// get returns a named group, or "".
func (m *match) get(name string) string {
	if i := m.row.re.SubexpIndex(name); i >= 0 && i < len(m.g) {
		return m.g[i]
	}
	return ""
}

// set replaces a named group's text, for a Classify that reads the
// location from another group; a name the pattern lacks is ignored.
func (m *match) set(name, v string) {
	if i := m.row.re.SubexpIndex(name); i >= 0 && i < len(m.g) {
		m.g[i] = v
	}
}

func (m *match) num(name string) int {
	n, _ := strconv.Atoi(m.get(name))
	return n
}

var (
	table      []*Row
	byFeatures [featAll + 1][]*Row // per set of line features, the pattern rows that can match
	byName     = map[string]*Row{}
)

// register adds rows to the table; a duplicate name panics at start-up.
func register(rows ...*Row) {
	for _, r := range rows {
		if _, dup := byName[r.Name]; dup {
			panic(fmt.Sprintf("logparse: duplicate row %q", r.Name))
		}
		if r.Pattern != "" {
			r.re = lazyre.New(r.Pattern)
			r.need = needOf(r.Pattern)
			if r.Hint != "" {
				for _, h := range strings.Split(r.Hint, "|") {
					r.hints = append(r.hints, newNeedle(h))
				}
			}
		}
		byName[r.Name] = r
		table = append(table, r)
	}
	sort.SliceStable(table, func(i, j int) bool { return !table[i].Generic && table[j].Generic })
	for f := range byFeatures {
		byFeatures[f] = byFeatures[f][:0]
		for _, r := range table {
			if r.re != nil && r.need&byte(f) == r.need {
				byFeatures[f] = append(byFeatures[f], r)
			}
		}
	}
}

// Rows returns a copy of the table, sorted by family then name.
func Rows() []Row {
	out := make([]Row, 0, len(table))
	for _, r := range table {
		out = append(out, *r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Family != out[j].Family {
			return out[i].Family < out[j].Family
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Line features, computed once per line, let rows skip lines that cannot
// match them.
const (
	featColonDigit byte = 1 << iota // ":" then a digit
	featParenDigit                  // "(" or "[" then a digit
	featLineWord                    // "line " then a digit
	featAll        = featColonDigit | featParenDigit | featLineWord
)

func needOf(p string) byte {
	switch {
	case strings.Contains(p, `:(?P<line>`):
		return featColonDigit
	case strings.Contains(p, `\((?P<line>`), strings.Contains(p, `\[(?P<line>`):
		return featParenDigit
	case strings.Contains(p, `line (?P<line>`):
		return featLineWord
	}
	return 0
}

// features scans a line for the features above, with the fast byte
// search of the standard library.
func features(s string, m byteMask) byte {
	var f byte
	if m&maskColon != 0 && byteThenDigit(s, ':') {
		f |= featColonDigit
	}
	if m&maskParen != 0 && byteThenDigit(s, '(') || m&maskBracket != 0 && byteThenDigit(s, '[') {
		f |= featParenDigit
	}
	return f
}

// hasLineWord reports whether s has "line " then a digit (bash's format).
func hasLineWord(s string) bool {
	for t := s; ; {
		i := strings.Index(t, "line ")
		if i < 0 || i+5 >= len(t) {
			return false
		}
		if isDigit(t[i+5]) {
			return true
		}
		t = t[i+5:]
	}
}

// byteThenDigit reports whether c occurs in s followed by a digit.
func byteThenDigit(s string, c byte) bool {
	for {
		i := strings.IndexByte(s, c)
		if i < 0 || i+1 >= len(s) {
			return false
		}
		if isDigit(s[i+1]) {
			return true
		}
		s = s[i+1:]
	}
}

// classRule is one rule of the shared message classifier: plain
// lower-case keywords, checked first, then an optional regular expression.
type classRule struct {
	words []string
	re    *lazyre.Regexp
	t     contract.ErrorType
}

// messageRules classify a message by its words, in order; the first match
// wins. They encode the mapping decisions of the package doc.
var messageRules = []classRule{
	{t: contract.ErrIndentation, words: []string{"indentationerror", "taberror", "missing separator", "unindent does not match",
		"expected an indented block", "unexpected indent", "inconsistent use of tabs", "recipe commences before first target",
		"commands commence before first target", "unindent amount does not match"}},
	{t: contract.ErrImport, words: []string{"imported and not used", "imported but unused", "unused import", "all imports in import declaration are unused",
		"no module named", "modulenotfounderror", "importerror", "cannot find module", "could not import", "no required module provides",
		"cannot find package", "is not in std", "unresolved import", "use of undeclared crate or module", "unable to resolve path to module",
		"could not find a package configuration file", "failed to resolve import", "could not find module", "cannot find source file",
		"unresolved module", "found module declaration for", "err_module_not_found", "no such module", "cannot open include file"},
		re: lazyre.New(`(?i)import .* is never used|package [\w.]+ does not exist|(?:\.h|\.hpp|\.hh)['"’]? file not found|\.(?:h|hpp|hh|hxx|inc): no such file or directory`)},
	{t: contract.ErrSyntax, words: []string{"syntax error", "syntaxerror", "parsing error", "parse error", "unexpected token", "illegal start of",
		"reached end of file while parsing", "unterminated", "unclosed delimiter", "mismatched closing delimiter", "not a statement", "stray '",
		"missing terminating", "invalid syntax", "unexpected end of file", "unexpected eof", "<identifier> expected", "non-declaration statement",
		"unexpected newline", "unexpected semicolon", "missing function body", "unexpected keyword", "unexpected character",
		"invalid character", "declaration or statement expected", "expression expected", "identifier expected", "was never closed",
		"expected expression", "expected identifier", "expected declaration", "expected statement", "expected unqualified-id",
		"expected primary-expression", "expected one of"},
		re: lazyre.New(`(?i)expected (?:';'|'\)'|'\('|'\{'|'\}'|'\]'|','|':'|'=')|expected .{1,40} before|['"][;,)(}{\]=:]['"] expected|class, interface, enum,? or record expected|unexpected .* at end of statement`)},
	{t: contract.ErrTypeError, words: []string{"undefined", "undeclared", "cannot find symbol", "not declared", "incompatible type",
		"mismatched types", "cannot use", "not assignable", "has no field or method", "has no member", "has no attribute",
		"arguments", "missing 1 required", "required positional", "unexpected keyword argument", "cannot find name", "is not defined",
		"declared and not used", "unknown type name", "conflicting types", "no matching function", "no matching member", "invalid conversion",
		"cannot convert", "type mismatch", "does not exist on type", "is not a function", "is not a constructor", "nameerror",
		"unboundlocalerror", "not callable", "cannot be applied", "cannot be dereferenced", "incompatible pointer", "invalid operands",
		"cannot assign", "unknown field", "no field", "does not have", "may not be applied", "non-exhaustive", "mismatch",
		"has incompatible type", "unsupported operand", "invalid type", "cannot infer", "is not iterable", "bad operand",
		"does not implement", "missing return", "wrong type", "not a type", "not found in this scope", "unknown name",
		"call to undeclared", "no such method", "no such field", "unknown method", "unresolved reference", "cannot find value",
		"cannot find type", "cannot find function", "cannot find macro", "cannot find struct", "cannot find trait",
		"no method named", "no field named", "no function named", "no member named"},
		re: lazyre.New(`takes \d+ positional argument|missing \d+ required|expected \S+, found`)},
}

// classCache remembers recent classifications: logs repeat their
// messages (summaries, make -k, repeated test output). It is bounded and
// guarded, and classification is pure, so the cache cannot change results.
var classCache = struct {
	sync.Mutex
	m map[classKey]contract.ErrorType
}{m: map[classKey]contract.ErrorType{}}

type classKey struct {
	msg string
	def contract.ErrorType
}

// classifyMessage applies messageRules to msg, falling back to def.
func classifyMessage(msg string, def contract.ErrorType) contract.ErrorType {
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	k := classKey{msg, def}
	classCache.Lock()
	t, ok := classCache.m[k]
	classCache.Unlock()
	if ok {
		return t
	}
	t = classifyUncached(msg, def)
	classCache.Lock()
	if len(classCache.m) >= 4096 {
		classCache.m = map[classKey]contract.ErrorType{}
	}
	classCache.m[classKey{strings.Clone(msg), def}] = t
	classCache.Unlock()
	return t
}

func classifyUncached(msg string, def contract.ErrorType) contract.ErrorType {
	low := strings.ToLower(msg)
	for _, r := range messageRules {
		for _, w := range r.words {
			if strings.Contains(low, w) {
				return r.t
			}
		}
		if r.re != nil && r.re.MatchString(msg) {
			return r.t
		}
	}
	return def
}
