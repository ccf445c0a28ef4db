package logparse

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
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
	// skip the regular expression. Empty means no prefilter.
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

	re   *regexp.Regexp
	idx  map[string]int
	need byte
}

// match is a row's match on one line.
type match struct {
	p    *parser
	row  *Row
	line string
	g    []string
	rule string // set by Classify to override the code group
}

// get returns a named group, or "".
func (m *match) get(name string) string {
	if i, ok := m.row.idx[name]; ok && i < len(m.g) {
		return m.g[i]
	}
	return ""
}

func (m *match) num(name string) int {
	n, _ := strconv.Atoi(m.get(name))
	return n
}

var (
	table  []*Row
	byName = map[string]*Row{}
)

// register adds rows to the table; a duplicate name panics at start-up.
func register(rows ...*Row) {
	for _, r := range rows {
		if _, dup := byName[r.Name]; dup {
			panic(fmt.Sprintf("logparse: duplicate row %q", r.Name))
		}
		if r.Pattern != "" {
			r.re = regexp.MustCompile(r.Pattern)
			r.idx = map[string]int{}
			for i, n := range r.re.SubexpNames() {
				if n != "" {
					r.idx[n] = i
				}
			}
			r.need = needOf(r.Pattern)
		}
		byName[r.Name] = r
		table = append(table, r)
	}
	sort.SliceStable(table, func(i, j int) bool { return !table[i].Generic && table[j].Generic })
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

// features scans a line once for the features above.
func features(s string) byte {
	var f byte
	for i := 0; i+1 < len(s); i++ {
		c := s[i]
		if c != ':' && c != '(' && c != '[' && c != ' ' {
			continue
		}
		if !isDigit(s[i+1]) {
			continue
		}
		switch c {
		case ':':
			f |= featColonDigit
		case '(', '[':
			f |= featParenDigit
		case ' ':
			if i >= 4 && s[i-4:i] == "line" {
				f |= featLineWord
			}
		}
	}
	return f
}

// classRule is one keyword rule of the shared message classifier.
type classRule struct {
	re *regexp.Regexp
	t  contract.ErrorType
}

// messageRules classify a message by its words, in order; the first match
// wins. They encode the mapping decisions of the package doc.
var messageRules = []classRule{
	{regexp.MustCompile(`(?i)IndentationError|TabError|missing separator|unindent does not match|expected an indented block|unexpected indent|inconsistent use of tabs|recipe commences before first target`), contract.ErrIndentation},
	{regexp.MustCompile(`(?i)imported and not used|imported but unused|unused import|import .* is never used|All imports in import declaration are unused|No module named|ModuleNotFoundError|ImportError|cannot find module|could not import|no required module provides|cannot find package|is not in std|unresolved import|use of undeclared crate or module|Unable to resolve path to module|package [\w.]+ does not exist|(?:\.h|\.hpp|\.hh)['"’]? file not found|\.(?:h|hpp|hh|hxx|inc): No such file or directory|Could not find a package configuration file|Could not resolve|Failed to resolve import|could not find module|Cannot find source file|unresolved module|found module declaration for`), contract.ErrImport},
	{regexp.MustCompile(`(?i)syntax ?error|SyntaxError|Parsing error|parse error|unexpected token|illegal start of|reached end of file while parsing|unterminated|unclosed delimiter|mismatched closing delimiter|not a statement|stray '|missing terminating|invalid syntax|unexpected end of file|unexpected EOF|expected (?:';'|'\)'|'\('|'\{'|'\}'|'\]'|','|':'|'='|expression|identifier|declaration|statement|unqualified-id|primary-expression|one of)|expected .{1,40} before|['"][;,)(}{\]=:]['"] expected|<identifier> expected|class, interface, enum,? or record expected|non-declaration statement|unexpected newline|unexpected semicolon|missing function body|Unexpected keyword|Unexpected character|Unterminated|unexpected .* at end of statement|invalid character|Declaration or statement expected|Expression expected|Identifier expected`), contract.ErrSyntax},
	{regexp.MustCompile(`(?i)undefined|undeclared|cannot find symbol|cannot find (?:value|type|function|macro|struct|trait)|not declared|incompatible types?|mismatched types|cannot use|not assignable|has no (?:field or method|member|attribute)|no (?:method|field|member|function) named|(?:not enough|too many|too few|wrong number of) arguments|takes \d+ positional argument|missing \d+ required|unexpected keyword argument|Cannot find name|is not defined|declared and not used|unknown type name|conflicting types|no matching (?:function|member)|invalid conversion|cannot convert|type mismatch|does not exist on type|is not a function|is not a constructor|NameError|UnboundLocalError|not callable|cannot be applied|cannot be dereferenced|incompatible pointer|invalid operands|cannot assign|unknown field|no field|does not have|may not be applied|non-exhaustive|mismatch|expected \S+, found|has incompatible type|Incompatible|unsupported operand|invalid type|cannot infer|is not iterable|bad operand|does not implement|missing return|wrong type|not a type|not found in this scope|unknown name|call to undeclared|no such (?:method|field)|unknown method`), contract.ErrTypeError},
}

// classifyMessage applies messageRules to msg, falling back to def.
func classifyMessage(msg string, def contract.ErrorType) contract.ErrorType {
	for _, r := range messageRules {
		if r.re.MatchString(msg) {
			return r.t
		}
	}
	return def
}

// Common Classify functions.

// compilerError keeps errors (and warnings promoted to errors), classifies
// them by message, and drops warnings and notes.
func compilerError(m *match) (contract.ErrorType, bool) {
	sev := strings.ToLower(m.get("sev"))
	msg := m.get("msg")
	if strings.Contains(msg, "[-Werror") {
		return contract.ErrLinting, true
	}
	if !strings.Contains(sev, "error") && sev != "e" && sev != "fatal" {
		return "", false
	}
	return classifyMessage(msg, contract.ErrTypeError), true
}

// lintFinding is LINTING unless the message names an import, syntax or
// undefined-name defect.
func lintFinding(m *match) (contract.ErrorType, bool) {
	t := classifyMessage(m.get("msg"), contract.ErrLinting)
	if t == contract.ErrTypeError && !looksUndefined(m.get("msg")) {
		t = contract.ErrLinting
	}
	return t, true
}

var undefinedRe = regexp.MustCompile(`(?i)undefined (?:name|variable)|is not defined|undefined:|Cannot find name|not found in this scope|undeclared`)

func looksUndefined(msg string) bool { return undefinedRe.MatchString(msg) }
