package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

func init() {
	register(
		&Row{Name: "rustc", Family: "rust", Tool: "rustc",
			Doc: "rustc, cargo and clippy: error[Ennnn]: message, then  --> file:line:col, then notes (deny lints)"},
		&Row{Name: "ruff-full", Family: "python", Tool: "ruff",
			Doc: "ruff's full output: CODE message, then  --> file:line:col"},
		&Row{Name: "rust-panic", Family: "rust", Tool: "cargo test",
			Doc: "Rust panics: thread 'name' panicked at src/x.rs:L:C: and the message (overflows too), and should_panic tests that did not panic (note: test did not panic as expected at src/x.rs:L:C)"},
	)
	addHandler(40, func() handler { return &rustBlock{} })
}

var (
	reRustHead  = lazyre.New(`^(error|warning)(?:\[(E\d{4}|[a-z_:]+)\])?: (.+)$`)
	reRuffHead  = lazyre.New(`^([A-Z]{1,4}\d{2,4}|invalid-syntax)(?: \[\*\])?:? (.+)$`)
	reRustArrow = lazyre.New(`^\s*--> (.+?):(\d+):(\d+)$`)
	rePanicNew  = lazyre.New(`^thread '(.*?)' (?:\(\d+\) )?panicked at (\S+?):(\d+):(\d+):$`)
	rePanicOld  = lazyre.New(`^thread '(.*?)' (?:\(\d+\) )?panicked at '(.*)', (\S+?):(\d+):(\d+)$`)
)

// rustBlock reads rustc's multi-line diagnostics (and ruff's, which copy
// them) and Rust test panics.
type rustBlock struct {
	active bool
	ruff   bool
	sev    string
	code   string
	msg    string
	notes  string
	loc    *finding
	panic  *finding
	test   string // from "---- name stdout ----"
}

// rustLeads start the lines rustBlock reads between blocks: error and
// warning heads, "---- test stdout ----", notes, "thread '...' panicked",
// and ruff's codes (capitals, or invalid-syntax).
var rustLeads = leads("ewnt-iABCDEFGHIJKLMNOPQRSTUVWXYZ")

func (r *rustBlock) line(p *parser, s string) bool {
	if !r.active && r.panic == nil && p.quiet(rustLeads) {
		return false
	}
	if r.panic != nil {
		t := strings.TrimSpace(s)
		if t != "" && !hasPrefix(t, "note:") && !hasPrefix(t, "stack backtrace") && len(r.panic.msg) < 600 {
			if !strings.Contains(r.panic.msg, "\n") {
				// The message first, then where: "assertion failed\nthread 'x' panicked at ..."
				r.panic.msg = t + "\n" + r.panic.msg
			} else if hasPrefix(t, "left:") || hasPrefix(t, "right:") {
				r.panic.msg += "\n" + t
			} else {
				r.endPanic(p)
				return false
			}
			return true
		}
		r.endPanic(p)
	}
	if r.active {
		if r.blockLine(p, s) {
			return true
		}
		r.end(p)
	}
	if len(s) < 8 {
		return false
	}
	switch s[0] {
	case 'e', 'w':
		if !hasPrefix(s, "error") && !hasPrefix(s, "warning") {
			break
		}
		if m := reRustHead.FindStringSubmatch(s); m != nil {
			r.start(m[1], m[2], m[3], false)
			return true
		}
	case '-':
		if hasPrefix(s, "---- ") && hasSuffix(s, " stdout ----") {
			r.test = own(strings.TrimSuffix(strings.TrimPrefix(s, "---- "), " stdout ----"))
			return true
		}
	case 'n':
		if hasPrefix(s, "note: test did not panic as expected") {
			if _, loc, ok := strings.Cut(s, " as expected at "); ok {
				if file, line := splitLoc(loc); line > 0 {
					p.emit(finding{file: file, line: line, typ: contract.ErrLogic, msg: s, test: r.test,
						tool: "cargo test", conf: 0.85, base: p.base(), row: "rust-panic"})
				}
			}
			return true
		}
	case 't':
		if !hasPrefix(s, "thread '") {
			break
		}
		if m := rePanicNew.FindStringSubmatch(s); m != nil {
			r.panic = &finding{file: m[2], line: atoi(m[3]), col: atoi(m[4]), msg: s, test: rustTest(m[1]), tool: "cargo test", conf: 0.85, base: p.base()}
			return true
		}
		if m := rePanicOld.FindStringSubmatch(s); m != nil {
			r.panic = &finding{file: m[3], line: atoi(m[4]), col: atoi(m[5]), msg: s, test: rustTest(m[1]), tool: "cargo test", conf: 0.85, base: p.base()}
			r.endPanic(p)
			return true
		}
	}
	if looksRuffCode(s) {
		if m := reRuffHead.FindStringSubmatch(s); m != nil {
			r.start("error", m[1], m[2], true)
			return false // only a block if an arrow follows; let rows see it too
		}
	}
	return false
}

// looksRuffCode is a cheap test for "ABC123 " or "invalid-syntax" at the
// start of s, before the regular expression.
func looksRuffCode(s string) bool {
	if hasPrefix(s, "invalid-syntax") {
		return true
	}
	i := 0
	for i < len(s) && i < 4 && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return i > 0 && j-i >= 2 && j < len(s) && (s[j] == ' ' || s[j] == ':')
}

// rustDenied reports whether a diagnostic's notes say it is a lint made an
// error (#[deny], -D warnings) or a clippy lint.
func rustDenied(notes string) bool {
	for _, w := range []string{"#[deny(", "#[forbid(", "`-D ", "-D warnings", "clippy::", "rust-clippy"} {
		if strings.Contains(notes, w) {
			return true
		}
	}
	return false
}

func rustTest(thread string) string {
	if thread == "main" || thread == "<unnamed>" {
		return ""
	}
	return thread
}

func (r *rustBlock) start(sev, code, msg string, ruff bool) {
	*r = rustBlock{active: true, ruff: ruff, sev: sev, code: code, msg: msg, test: r.test}
}

// blockLine reports whether s continues the current diagnostic.
func (r *rustBlock) blockLine(p *parser, s string) bool {
	t := strings.TrimSpace(s)
	if r.loc == nil {
		if m := reRustArrow.FindStringSubmatch(s); m != nil {
			r.loc = &finding{file: m[1], line: atoi(m[2]), col: atoi(m[3]), base: p.base()}
			return true
		}
		// The arrow comes right after the head; anything else ends it.
		return false
	}
	if t == "" {
		return false
	}
	if hasPrefix(t, "|") || hasPrefix(t, "=") || hasPrefix(t, ":::") || hasPrefix(t, "...") ||
		hasPrefix(t, "-->") || startsWithLineGutter(t) || hasPrefix(s, "  ") || hasPrefix(t, "help:") || hasPrefix(t, "note:") {
		if len(r.notes) < 2000 {
			r.notes += t + "\n"
		}
		return true
	}
	return false
}

func startsWithLineGutter(t string) bool {
	i := 0
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == ' ' || t[i] == '|')
}

// end emits the finished diagnostic.
func (r *rustBlock) end(p *parser) {
	defer func() { *r = rustBlock{panic: r.panic, test: r.test} }()
	if r.loc == nil {
		return
	}
	f := *r.loc
	f.msg, f.rule, f.sev, f.row = r.msg, r.code, r.sev, "rustc"
	if r.ruff {
		f.tool, f.conf, f.sev, f.row = "ruff", 0.9, "", "ruff-full"
		f.typ = pyCodeType(r.code, r.msg)
		p.emit(f)
		return
	}
	f.tool, f.conf = "rustc", 0.95
	denied := rustDenied(r.notes)
	if strings.Contains(r.notes, "clippy") {
		f.tool = "clippy"
	}
	switch {
	case r.sev == "warning" && strings.Contains(r.notes, "clippy"):
		// clippy's own findings are linter findings, reported like ESLint's
		// warnings; the compiler's warnings did not fail the build.
		f.typ, f.conf = contract.ErrLinting, 0.85
		if f.rule == "" {
			f.rule = rustLintName(r.notes)
		}
	case r.sev == "warning":
		return // warnings do not fail the build; denied ones are errors
	case hasPrefix(r.code, "E"):
		f.typ = rustCodeType(r.code, r.msg)
	case denied || hasPrefix(r.code, "clippy"):
		f.typ = classifyMessage(r.msg, contract.ErrLinting)
		if f.typ != contract.ErrImport {
			f.typ = contract.ErrLinting
		}
		if f.rule == "" {
			f.rule = rustLintName(r.notes)
		}
	default:
		f.typ = rustUncoded(r.msg, r.notes)
	}
	if hasPrefix(r.msg, "aborting due to") || hasPrefix(r.msg, "could not compile") {
		return
	}
	p.emit(f)
}

var reRustLintName = lazyre.New("#\\[(?:deny|forbid)\\(([\\w:]+)\\)\\]|`-D ([\\w:-]+)`|index\\.html#([\\w_]+)")

func rustLintName(notes string) string {
	m := reRustLintName.FindStringSubmatch(notes)
	if m == nil {
		return ""
	}
	for _, g := range m[1:] {
		if g != "" && g != "warnings" {
			return g
		}
	}
	return ""
}

func (r *rustBlock) endPanic(p *parser) {
	f := *r.panic
	r.panic = nil
	f.typ, f.row = contract.ErrLogic, "rust-panic"
	p.emit(f)
}

func (r *rustBlock) flush(p *parser) {
	if r.panic != nil {
		r.endPanic(p)
	}
	if r.active {
		r.end(p)
	}
}

// rustCodes maps rustc error codes whose class the message does not make
// plain. The rest are TYPE_ERROR (E0xxx are semantic) unless the message
// says otherwise.
var rustCodes = map[string]contract.ErrorType{
	"E0432": contract.ErrImport, "E0433": contract.ErrImport, "E0463": contract.ErrImport,
	"E0583": contract.ErrImport, "E0603": contract.ErrImport, "E0405": contract.ErrTypeError,
	"E0412": contract.ErrTypeError, "E0425": contract.ErrTypeError, "E0308": contract.ErrTypeError,
}

func rustCodeType(code, msg string) contract.ErrorType {
	if code == "E0433" && !strings.Contains(msg, "crate or module") && !strings.Contains(msg, "unresolved import") {
		return contract.ErrTypeError
	}
	if t, ok := rustCodes[code]; ok {
		return t
	}
	t := classifyMessage(msg, contract.ErrTypeError)
	if t == contract.ErrSyntax && hasPrefix(code, "E0") {
		return contract.ErrTypeError // "expected X, found Y" is a type mismatch
	}
	return t
}

// rustUncoded classifies errors without a code: lints when the notes say
// they are denied, otherwise mostly parse errors.
func rustUncoded(msg, notes string) contract.ErrorType {
	if rustDenied(notes) {
		return contract.ErrLinting
	}
	if hasPrefix(msg, "unused import") {
		return contract.ErrImport
	}
	if hasPrefix(msg, "unused ") || hasPrefix(msg, "variable does not need") {
		return contract.ErrLinting
	}
	t := classifyMessage(msg, contract.ErrSyntax)
	if t == contract.ErrTypeError && !reRustSemantic.MatchString(msg) {
		return contract.ErrSyntax
	}
	return t
}

// reRustSemantic marks the uncoded rustc errors that are not parse errors.
var reRustSemantic = lazyre.New(`cannot find|not found|undefined|unknown|undeclared`)
