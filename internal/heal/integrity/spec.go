package integrity

import (
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// A function's documentation is its specification: a value it names (a
// status code, a boundary, a special input) is the function's own, and a
// fix that gives that value its own branch follows the specification, not
// the test. Only the documentation the original already had counts, and
// only its statements: an example call with its result (Add(2, 3) is 5,
// a doctest, a fenced example) names the test's values, not the rule.

// declStart opens a function, a method or a class: the declaration whose
// documentation specifies the code inside it.
var declStart = lazyre.New(`^\s*((pub(\([^)]*\))?\s+|export\s+|async\s+|static\s+|public\s+|private\s+|protected\s+|final\s+|inline\s+)*(func|def|fn|function|class)\b|^\s*[A-Za-z_][\w<>\[\],\s\*&:]*\s[\*&]*[A-Za-z_]\w*\s*\([^;]*$)`)

// exampleLine is a line of documentation that shows an example rather
// than states a rule: a call with a literal argument, a doctest prompt, a
// comparison, an assertion, a result arrow.
var exampleLine = lazyre.New(`[\w\]]\s*\(\s*[-\d"'\[({]|>>>|==|=>|->|\bassert|\breturns?\s+-?\d+\s*(for|when|given)\b`)

// docFence opens or closes a fenced example (Markdown's ```).
var docFence = lazyre.New("^\\s*(//[/!]?|#|\\*|/\\*\\*?)?\\s*```")

// specLiterals returns the literals the documentation of the declaration
// enclosing line j of the patched file states, as the original had it:
// the comment lines above the declaration, or a Python docstring below it.
func (c *checker) specLiterals(j int) map[string]bool {
	f := c.new
	k := -1
	for i := j - 1; i >= 0; i-- {
		l := &f.lines[i]
		if l.blank() || indent(l.raw) >= indent(f.lines[j].raw) {
			continue
		}
		if declStart.MatchString(l.mask) && !conditional.MatchString(l.mask) {
			k = i
		}
		break
	}
	if k < 0 {
		return nil
	}
	var doc []string
	for i := k - 1; i >= 0; i-- { // comments above, past attributes and decorators
		l := &f.lines[i]
		t := strings.TrimSpace(l.mask)
		if l.blank() && strings.TrimSpace(l.comment) != "" {
			doc = append(doc, l.comment)
			continue
		}
		if strings.HasPrefix(t, "@") || strings.HasPrefix(t, "#[") {
			continue
		}
		break
	}
	if c.name == "python" && k+1 < len(f.lines) && len(f.lines[k+1].strs) > 0 && strings.TrimSpace(strings.Trim(f.lines[k+1].mask, `" `)) == "" {
		for i := k + 1; i < len(f.lines) && i <= k+maxTestLines; i++ { // the docstring
			doc = append(doc, f.lines[i].raw)
			if i > k+1 && strings.Contains(f.lines[i].raw, `"""`) || i == k+1 && strings.Count(f.lines[i].raw, `"""`) == 2 {
				break
			}
		}
	}
	out := map[string]bool{}
	fenced := false
	for _, d := range doc {
		if docFence.MatchString(d) {
			fenced = !fenced
			continue
		}
		if fenced || exampleLine.MatchString(d) || !strings.Contains(c.in.Original, strings.TrimSpace(d)) {
			continue
		}
		for _, w := range specWords.FindAllString(d, -1) {
			out[w] = true
		}
	}
	return out
}

// specWords are the words and numbers of a documentation line.
var specWords = lazyre.New(`-?\d[\d_.]*\w*|[A-Za-z_$][\w$]*`)

// inSpec reports whether the literal v is stated by spec: a number or a
// word as it is, a string by its content when that is one word or
// number.
func inSpec(spec map[string]bool, v string) bool {
	if len(spec) == 0 {
		return false
	}
	if len(v) >= 2 && strings.ContainsRune(`"'`+"`", rune(v[0])) {
		v = v[1 : len(v)-1]
	}
	return v != "" && spec[v]
}
