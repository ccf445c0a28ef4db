package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// Ruby: ruby -c and the interpreter's syntax errors, uncaught exceptions
// with their "from" frames, minitest, RSpec and RuboCop.

const rubyExt = `(?:rb|rake|ru|gemspec|erb|rbs)`

func init() {
	register(
		&Row{Name: "ruby-syntax", Family: "ruby", Tool: "ruby", Hint: "syntax error", ErrWord: true,
			Pattern: `^(?:ruby: )?(?P<file>[^\s:]+\.` + rubyExt + `|Gemfile|Rakefile):(?P<line>\d+): (?:[^:]*: )?(?P<msg>syntax errors?\b.*|.*\(SyntaxError\))$`,
			Type:    contract.ErrSyntax, Confidence: 0.95,
			Doc: "ruby -c and the interpreter's syntax errors: file.rb:line: syntax error, unexpected ... (Ruby 3.4: syntax errors found)"},
		&Row{Name: "rubocop", Family: "ruby", Tool: "rubocop", Pre: rubocopShape,
			Pattern:  `^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>[CWEFRI]): (?:\[(?:Correctable|Corrected|Todo|Unsupported)\] )*(?P<rule>[A-Z]\w*/\w+): (?P<msg>.*)$`,
			Classify: rubocopClassify, Confidence: 0.9,
			Doc: "RuboCop (progress, clang, emacs and simple formats): file.rb:line:col: C: [Correctable] Dept/Cop: message"},
		&Row{Name: "ruby-exception", Family: "ruby", Tool: "ruby",
			Doc: "uncaught Ruby exceptions (file.rb:line:in 'method': message (Class), then from file:line lines): the deepest workspace frame"},
		&Row{Name: "minitest", Family: "ruby", Tool: "minitest",
			Doc: "minitest: N) Failure: Class#test [file.rb:line]: and N) Error: with its backtrace (the deepest workspace frame)"},
		&Row{Name: "rspec", Family: "ruby", Tool: "rspec",
			Doc: "RSpec failures: N) description, Failure/Error:, the exception, then # ./file.rb:line frames (the deepest workspace frame)"},
	)
	addHandler(35, func() handler { return &rubyTrace{} })
}

// rubocopShape is a cheap test for RuboCop's ": C: Dept/Cop: " after the
// location.
func rubocopShape(s string) bool {
	for i := strings.Index(s, ": "); i >= 0 && i+5 < len(s); {
		if s[i+3] == ':' && s[i+4] == ' ' && strings.IndexByte("CWEFRI", s[i+2]) >= 0 {
			return true
		}
		j := strings.Index(s[i+2:], ": ")
		if j < 0 {
			return false
		}
		i += 2 + j
	}
	return false
}

func rubocopClassify(m *match) (contract.ErrorType, bool) {
	if m.get("rule") == "Lint/Syntax" {
		return contract.ErrSyntax, true
	}
	return contract.ErrLinting, true
}

var (
	// file.rb:7:in `*': message (TypeError), and Ruby 3.4's 'Class#method'
	reRubyHead  = lazyre.New(`^(\S+?\.` + rubyExt + `|\S+/(?:Gemfile|Rakefile)|-e):(\d+):in [` + "`'" + `]([^'` + "`" + `]*)': (.*?)(?: \(([A-Z][\w:]*)\))?$`)
	reRubyFrame = lazyre.New(`^\s*(?:from |# )?(\S+?\.` + rubyExt + `|\S*(?:Gemfile|Rakefile)):(\d+)(?::in [` + "`'" + `].*)?$`)
	reMiniHead  = lazyre.New(`^\s*\d+\) (Failure|Error):$`)
	reMiniFail  = lazyre.New(`^(\S+?[#.:]\S+) \[(\S+?):(\d+)\]:$`)
	reMiniErr   = lazyre.New(`^(\S+?[#.]\S+):$`)
	reRubyExc   = lazyre.New(`^([A-Z][\w:]*(?:Error|Exception|Interrupt|NotImplemented|StopIteration|Exit|Failed|Failure))(?::$|: (.*)$)`)
	reRSpecHead = lazyre.New(`^  (\d+)\) (.+)$`)
)

// rubyTrace reads the multi-line Ruby formats: an uncaught exception's
// "from" frames, minitest's Failure and Error blocks, and RSpec's numbered
// failures.
type rubyTrace struct {
	mode   string // "", "uncaught", "mini-head", "mini-error", "rspec"
	test   string
	msg    string
	exc    string
	found  *finding // the deepest workspace frame so far
	n      int      // lines read in the block
	frames int      // frames read in the block
	rspec  bool     // an RSpec "Failures:" section is being read
}

func (r *rubyTrace) line(p *parser, s string) bool {
	switch r.mode {
	case "uncaught":
		if m := reRubyFrame.FindStringSubmatch(s); m != nil && hasPrefix(strings.TrimSpace(s), "from ") {
			r.frame(p, m[1], m[2])
			return true
		}
		r.end(p)
	case "mini-head":
		r.n++
		if m := reMiniFail.FindStringSubmatch(s); m != nil {
			p.emit(finding{file: own(m[2]), line: atoi(m[3]), typ: contract.ErrLogic, msg: own(s), test: own(m[1]),
				tool: "minitest", conf: 0.9, base: p.base(), row: "minitest"})
			r.mode = ""
			return true
		}
		if m := reMiniErr.FindStringSubmatch(s); m != nil {
			r.mode, r.test, r.n = "mini-error", own(m[1]), 0
			return true
		}
		r.mode = ""
	case "mini-error":
		r.n++
		t := strings.TrimSpace(s)
		if t == "" && r.frames > 0 || r.n > 200 || r.frames == 0 && r.n > 30 {
			r.end(p)
			return true
		}
		if r.exc == "" {
			if m := reRubyExc.FindStringSubmatch(t); m != nil {
				r.exc, r.msg = own(m[1]), own(t)
				return true
			}
		}
		if m := reRubyFrame.FindStringSubmatch(s); m != nil && hasPrefix(s, " ") {
			r.frame(p, m[1], m[2])
		}
		return true
	case "rspec":
		r.n++
		t := strings.TrimSpace(s)
		if m := reRSpecHead.FindStringSubmatch(s); m != nil || r.n > 300 || t != "" && !hasPrefix(s, "     ") {
			// RSpec indents a failure's lines by five spaces: anything else
			// ends it, and is read as usual.
			r.end(p)
			break
		}
		if hasPrefix(t, "Failure/Error: ") {
			if r.msg == "" {
				r.msg = own(t)
			}
			return true
		}
		if m := reRubyExc.FindStringSubmatch(t); m != nil && r.exc == "" && hasPrefix(s, "     ") && !hasPrefix(t, "Failure/Error") {
			r.exc = own(m[1])
			return true
		}
		if hasPrefix(t, "# ") {
			if m := reRubyFrame.FindStringSubmatch(t); m != nil {
				r.frame(p, m[1], m[2])
			}
			return true
		}
		if t != "" && len(r.msg) < 600 && hasPrefix(s, "       ") {
			r.msg += "\n" + own(t)
		}
		return true
	}
	if len(s) < 4 {
		return false
	}
	if s == "Failures:" {
		r.rspec = true
		return true
	}
	if r.rspec {
		if m := reRSpecHead.FindStringSubmatch(s); m != nil {
			*r = rubyTrace{mode: "rspec", test: own(m[2]), rspec: true}
			return true
		}
		if hasPrefix(s, "Finished in ") || hasPrefix(s, "Failed examples:") {
			r.rspec = false
		}
	}
	if hasSuffix(s, "Failure:") || hasSuffix(s, "Error:") {
		if reMiniHead.MatchString(s) {
			*r = rubyTrace{mode: "mini-head"}
			return true
		}
	}
	if s[len(s)-1] == ')' && strings.Contains(s, ":in ") {
		if m := reRubyHead.FindStringSubmatch(s); m != nil {
			*r = rubyTrace{mode: "uncaught", msg: own(m[4]), exc: own(m[5])}
			if m[5] != "" {
				r.msg = own(m[4] + " (" + m[5] + ")")
			}
			r.frame(p, m[1], m[2])
			return true
		}
	}
	return false
}

// frame keeps the first workspace frame of a trace: Ruby prints the
// deepest first.
func (r *rubyTrace) frame(p *parser, file, line string) {
	r.frames++
	if r.found != nil {
		return
	}
	if _, res := p.res.resolve(file, p.base()); res == resDrop {
		return
	}
	p.noteFrame(file)
	r.found = &finding{file: own(file), line: atoi(line), base: own(p.base()), row: "ruby-exception", tool: "ruby", conf: 0.75}
}

// end reports the block read so far.
func (r *rubyTrace) end(p *parser) {
	mode, f := r.mode, r.found
	keep := r.rspec
	defer func() { *r = rubyTrace{rspec: keep} }()
	if f == nil {
		return
	}
	f.test, f.msg = r.test, r.msg
	f.typ = rubyExcType(r.exc, r.msg)
	switch mode {
	case "mini-error":
		f.tool, f.row, f.conf = "minitest", "minitest", 0.85
	case "rspec":
		f.tool, f.row, f.conf = "rspec", "rspec", 0.85
		if r.exc == "" {
			f.typ, f.conf = contract.ErrLogic, 0.9
		}
	}
	if f.msg == "" {
		f.msg = r.exc
	}
	p.emit(*f)
}

func (r *rubyTrace) flush(p *parser) {
	if r.mode != "" {
		r.end(p)
	}
}

// rubyExcType maps a Ruby exception to an error type, as the package doc
// says for dynamic languages: what a compiler would have caught is
// TYPE_ERROR, a nil receiver is LOGIC.
func rubyExcType(exc, msg string) contract.ErrorType {
	name := exc[strings.LastIndex(exc, ":")+1:]
	switch name {
	case "SyntaxError":
		return contract.ErrSyntax
	case "LoadError":
		return contract.ErrImport
	case "NameError", "NoMethodError":
		if strings.Contains(msg, "for nil") || strings.Contains(msg, "NilClass") {
			return contract.ErrLogic
		}
		return contract.ErrTypeError
	case "TypeError":
		if !strings.Contains(msg, "nil") {
			return contract.ErrTypeError // no implicit conversion, wrong argument type
		}
	case "ArgumentError":
		if strings.Contains(msg, "wrong number of arguments") || strings.Contains(msg, "missing keyword") || strings.Contains(msg, "unknown keyword") {
			return contract.ErrTypeError
		}
	}
	return contract.ErrLogic
}
