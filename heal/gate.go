package heal

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/lazyre"
)

// DefaultMinConfidence is the default confidence threshold of the fix gate.
const DefaultMinConfidence = 0.7

// GateWindow is how many lines either side of a reported line a fix may
// touch (seed 001: "fix only reported lines ±3").
const GateWindow = 3

// GateInput is one fix presented to the gate.
type GateInput struct {
	Path     string
	Original string
	Patched  string
	Reports  []contract.BugReport
	// Confidence is the fixer's confidence score.
	Confidence    float64
	MinConfidence float64
}

// GateDecision is the gate's verdict on one fix.
type GateDecision struct {
	Accepted bool `json:"accepted"`
	// Reasons lists every rule the fix broke; empty when accepted.
	Reasons []string `json:"reasons,omitempty"`
	// Diff is the fix as a unified diff that git apply accepts.
	Diff  string `json:"diff"`
	Hunks []Hunk `json:"-"`
}

// Reason joins the rejection reasons into one line.
func (d GateDecision) Reason() string { return strings.Join(d.Reasons, "; ") }

// Gate enforces the Fix Agent's boundary rules before a fix is accepted
// (seed 001): the diff touches only the reported lines ±3, comments are
// preserved, nothing unrelated is edited, and the confidence reaches the
// threshold. One extension is documented in docs/heal.md: a hunk made only
// of import lines (Go imports, Python imports, C includes) may sit outside
// the windows, because a missing or unused import is fixed where the
// imports are, not where the name is used.
func Gate(in GateInput) GateDecision {
	hunks := LineDiff(in.Original, in.Patched)
	d := GateDecision{Hunks: hunks, Diff: Patch(in.Path, in.Original, in.Patched)}
	if len(hunks) == 0 {
		d.Reasons = append(d.Reasons, "the fix changes nothing")
	}
	if in.Confidence < in.MinConfidence {
		d.Reasons = append(d.Reasons, fmt.Sprintf("confidence %.2f is below the threshold %.2f", in.Confidence, in.MinConfidence))
	}
	lang := langOf(in.Path)
	for _, h := range hunks {
		if inWindows(h, in.Reports) || onlyImports(lang, h) {
			continue
		}
		lo, hi := hunkSpan(h)
		d.Reasons = append(d.Reasons, fmt.Sprintf("diff touches lines %d-%d, outside the reported lines ±%d (%s)", lo, hi, GateWindow, reportedLines(in.Reports)))
	}
	if lost := lostComments(lang, in.Original, in.Patched); len(lost) > 0 {
		d.Reasons = append(d.Reasons, fmt.Sprintf("comments removed: %q", lost))
	}
	d.Accepted = len(d.Reasons) == 0
	return d
}

// hunkSpan returns the original lines a hunk touches. A pure insertion
// touches the lines on both sides of the insertion point.
func hunkSpan(h Hunk) (int, int) {
	if len(h.Old) == 0 {
		return h.OldStart - 1, h.OldStart
	}
	return h.OldStart, h.OldStart + len(h.Old) - 1
}

func inWindows(h Hunk, reports []contract.BugReport) bool {
	lo, hi := hunkSpan(h)
	insertion := len(h.Old) == 0
	for _, r := range reports {
		wlo, whi := r.LineNumber-GateWindow, r.LineNumber+GateWindow
		if insertion && ((lo >= wlo && lo <= whi) || (hi >= wlo && hi <= whi)) {
			return true
		}
		if !insertion && lo >= wlo && hi <= whi {
			return true
		}
	}
	return false
}

func reportedLines(reports []contract.BugReport) string {
	seen := map[int]bool{}
	var ls []int
	for _, r := range reports {
		if !seen[r.LineNumber] {
			seen[r.LineNumber] = true
			ls = append(ls, r.LineNumber)
		}
	}
	sort.Ints(ls)
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprint(l)
	}
	return "reported: " + strings.Join(parts, ", ")
}

// importLine recognises one import line per language family.
var importLine = map[string]*lazyre.Regexp{
	"go": lazyre.New(`^\s*(import\s*\(?\s*|import\s+(\w+\s+|_\s+|\.\s+)?"[^"]+"\s*|(\w+\s+|_\s+|\.\s+)?"[^"]+"\s*|\)\s*)$`),
	"py": lazyre.New(`^\s*(import\s+[\w.]+(\s+as\s+\w+)?(\s*,\s*[\w.]+(\s+as\s+\w+)?)*|from\s+[\w.]+\s+import\s+.+)\s*$`),
	"c":  lazyre.New(`^\s*(#\s*include\s*[<"][^>"]+[>"]|(pub(\([\w:]+\))?\s+)?use\s+[\w:]+(::\{[\w:, {}*]*\}|::\*)?(\s+as\s+\w+)?;|import\s+(static\s+)?[\w.$]+(\.\*)?;)\s*$`),
	"js": lazyre.New(`^\s*(import\s.+|const\s+(\w+|\{[\w\s,:]*\})\s*=\s*require\([^)]*\);?)\s*$`),
}

func onlyImports(lang string, h Hunk) bool {
	re := importLine[lang]
	if re == nil {
		return false
	}
	nonBlank := 0
	for _, l := range append(append([]string{}, h.Old...), h.New...) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		nonBlank++
		if !re.MatchString(l) {
			return false
		}
	}
	return nonBlank > 0
}

// langOf maps a file to the family whose comment and import syntax it
// uses: "go", "c" (C, C++, Java, Rust, C#…), "js", "py" (Python, shell,
// Ruby, YAML) or "" when unknown.
func langOf(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		return "go"
	case ".c", ".h", ".cc", ".cpp", ".hpp", ".cxx", ".java", ".rs", ".cs", ".kt", ".swift", ".scala":
		return "c"
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs":
		return "js"
	case ".py", ".sh", ".rb", ".pl", ".yaml", ".yml", ".toml", ".r":
		return "py"
	}
	return ""
}

// lostComments returns the comments of orig that patched no longer has,
// compared as a multiset of trimmed comment texts.
func lostComments(lang, orig, patched string) []string {
	if lang == "" {
		return nil
	}
	have := map[string]int{}
	for _, c := range comments(lang, patched) {
		have[c]++
	}
	var lost []string
	for _, c := range comments(lang, orig) {
		if have[c] > 0 {
			have[c]--
			continue
		}
		lost = append(lost, c)
	}
	return lost
}

// comments extracts the comment texts of src: line comments ("//" or "#")
// and block comments ("/* */"), skipping string literals. It is a lexer
// approximation good enough to notice a removed comment.
func comments(lang, src string) []string {
	hash := lang == "py"
	var out []string
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		if quote != 0 {
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote || (c == '\n' && quote != '`') {
				quote = 0
			}
			continue
		}
		switch {
		case c == '"' || c == '\'' || (c == '`' && !hash):
			quote = c
		case hash && c == '#', !hash && c == '/' && i+1 < len(src) && src[i+1] == '/':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			out = appendComment(out, src[i:i+end])
			i += end
		case !hash && c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 2
			}
			out = appendComment(out, src[i:i+2+end])
			i += end + 3
		}
	}
	return out
}

func appendComment(out []string, c string) []string {
	if t := strings.TrimSpace(c); t != "" {
		return append(out, t)
	}
	return out
}
