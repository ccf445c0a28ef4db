package logparse

import (
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

func init() {
	register(
		&Row{Name: "bash", Family: "shell", Tool: "bash", Hint: ": line ",
			Pattern:  `^(?:/bin/|/usr/bin/)?(?:ba|z|k|da)?sh: (?:line \d+: )?(?P<file>[^\s:]+): line (?P<line>\d+): (?P<msg>.*)$|^(?P<file2>[^\s:]+\.(?:sh|bash)): line (?P<line2>\d+): (?P<msg2>.*)$`,
			Classify: bashClassify, Confidence: 0.85,
			Doc: "bash and sh run-time errors: script.sh: line N: message"},
		&Row{Name: "shellcheck-tty", Family: "shell", Tool: "shellcheck",
			Doc: "shellcheck's default tty format: In file line N:, the source, then ^-- SCnnnn (severity): message"},
		&Row{Name: "github-annotation", Family: "ci", Tool: "github",
			Doc: "GitHub Actions workflow commands: ::error file=F,line=L,col=C::message"},
	)
	addHandler(60, func() handler { return &shellcheckTTY{} })
	addHandler(70, func() handler { return &ghAnnotation{} })
}

func bashClassify(m *match) (contract.ErrorType, bool) {
	if m.get("file") == "" {
		// Use the second alternative's groups.
		m.set("file", m.get("file2"))
		m.set("line", m.get("line2"))
		m.set("msg", m.get("msg2"))
	}
	if f := m.get("file"); hasPrefix(f, "-") || f == "sh" || f == "bash" {
		return "", false // bash -c: the line is in a command string, not a file
	}
	msg := m.get("msg")
	if len(msg) > 1 && msg[0] == '`' && msg[len(msg)-1] == '\'' {
		return "", false // the source line bash quotes after a syntax error: not an error of its own
	}
	switch {
	case strings.Contains(msg, "syntax error") || strings.Contains(msg, "unexpected end of file") || strings.Contains(msg, "unexpected EOF"):
		return contract.ErrSyntax, true
	case strings.Contains(msg, "command not found"):
		return contract.ErrTypeError, true
	case strings.Contains(msg, "No such file or directory") && strings.Contains(msg, "source"):
		return contract.ErrImport, true
	}
	return contract.ErrLogic, true
}

var (
	reSCHead = lazyre.New(`^In (\S+) line (\d+):$`)
	reSCMsg  = lazyre.New(`^(\s*)\^-*\^?-* (SC\d+)(?: \((\w+)\))?: (.*)$`)
)

// shellcheckTTY reads shellcheck's default output.
type shellcheckTTY struct {
	file string
	lnum int
	n    int // lines since the header or the last message
}

// shellcheckLeads start shellcheck's "In file line N:" header.
var shellcheckLeads = leads("I")

func (t *shellcheckTTY) line(p *parser, s string) bool {
	if t.file == "" && p.quiet(shellcheckLeads) {
		return false
	}
	if hasPrefix(s, "In ") {
		if m := reSCHead.FindStringSubmatch(s); m != nil {
			t.file, t.lnum, t.n = m[1], atoi(m[2]), 0
			return true
		}
	}
	if t.file == "" {
		return false
	}
	if hasPrefix(s, "For more information") {
		t.file = ""
		return false
	}
	if m := reSCMsg.FindStringSubmatch(s); m != nil {
		typ := contract.ErrLinting
		if hasPrefix(m[2], "SC1") && m[3] == "error" {
			typ = contract.ErrSyntax
		}
		p.emit(finding{file: t.file, line: t.lnum, col: len(m[1]) + 1, typ: typ, msg: m[4], rule: m[2],
			sev: normSeverity(m[3]), tool: "shellcheck", conf: 0.9, base: p.base(), row: "shellcheck-tty"})
		t.n = 0
		return true
	}
	t.n++
	if t.n > 3 {
		t.file = ""
		return false
	}
	return true
}

func (t *shellcheckTTY) flush(p *parser) {}

var (
	reGHA      = lazyre.New(`^::(error|warning|notice)(?: ([^:]*))?::(.*)$`)
	reGHAParam = lazyre.New(`(\w+)=([^,]*)`)
)

// ghAnnotation reads GitHub Actions workflow commands, which some tools
// print instead of their usual format.
type ghAnnotation struct{}

// annotationLeads start the workflow commands: ## (Azure) and :: (GitHub).
var annotationLeads = leads("#:")

func (ghAnnotation) line(p *parser, s string) bool {
	if p.quiet(annotationLeads) {
		return false
	}
	if hasPrefix(s, "##vso[task.logissue ") {
		return azureIssue(p, s)
	}
	if !hasPrefix(s, "::") {
		return false
	}
	m := reGHA.FindStringSubmatch(s)
	if m == nil || m[1] != "error" {
		return m != nil
	}
	f := finding{msg: unescapeGHA(m[3]), tool: "github", sev: "error", conf: 0.85, base: p.base(), row: "github-annotation"}
	for _, kv := range reGHAParam.FindAllStringSubmatch(m[2], -1) {
		switch kv[1] {
		case "file":
			f.file = unescapeGHA(kv[2])
		case "line":
			f.line = atoi(kv[2])
		case "col":
			f.col = atoi(kv[2])
		case "title":
			f.rule = unescapeGHA(kv[2])
		}
	}
	f.typ = classifyMessage(f.msg+" "+f.rule, contract.ErrLinting)
	p.emit(f)
	return true
}

func (ghAnnotation) flush(p *parser) {}

// azureIssue reads Azure Pipelines' logging command
// ##vso[task.logissue type=error;sourcepath=F;linenumber=L;columnnumber=C;code=X;]message.
func azureIssue(p *parser, s string) bool {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return false
	}
	f := finding{msg: s[end+1:], tool: "azure", sev: "error", conf: 0.85, base: p.base(), row: "github-annotation"}
	isErr := false
	for _, kv := range strings.Split(s[len("##vso[task.logissue "):end], ";") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "type":
			isErr = v == "error"
		case "sourcepath":
			f.file = v
		case "linenumber":
			f.line = atoi(v)
		case "columnnumber":
			f.col = atoi(v)
		case "code":
			f.rule = v
		}
	}
	if isErr {
		f.typ = classifyMessage(f.msg+" "+f.rule, contract.ErrLinting)
		p.emit(f)
	}
	return true
}

func unescapeGHA(s string) string {
	r := strings.NewReplacer("%0A", "\n", "%0D", "", "%25", "%", "%3A", ":", "%2C", ",")
	return r.Replace(s)
}
