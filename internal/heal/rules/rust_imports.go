package rules

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// fixRustImports adds the use lines of the std items a file names
// without importing them (rustc's E0412, E0425, E0433, E0405, and E0599
// for a trait method): the use line rustc proposed when the report
// carries exactly one, else the table of common std items.
func fixRustImports(_ context.Context, _ *Fixer, in ruleInput) (edit, bool, error) {
	ls := splitContent(in.content)
	uses := rustUses(ls.l)
	code := rustCode(in.content)
	var adds []string
	seen := map[string]bool{}
	conf := 0.9
	for _, r := range in.reports {
		line := ""
		if r.LineNumber >= 1 && r.LineNumber <= len(ls.l) {
			line = ls.l[r.LineNumber-1]
		}
		p, name, c, ok := rustStdPath(r.Message, line)
		if !ok || seen[p] || rustBinds(uses, code, p, name) {
			continue
		}
		seen[p] = true
		adds = append(adds, "use "+p+";")
		conf = min(conf, c)
	}
	if len(adds) == 0 {
		return edit{}, false, nil
	}
	sort.Strings(adds)
	for _, a := range adds {
		insertRustUse(&ls, a)
	}
	return edit{content: ls.String(), reason: "add the missing " + strings.Join(adds, " "), confidence: conf}, true, nil
}

// rustUse is one top-level use item of a file.
type rustUse struct {
	from, to int // 0-based lines, to exclusive
	path     string
	group    int
}

var reRustUseStart = lazyre.New(`^(pub(\([\w:]+\))?\s+)?use\s+`)

// rustUses lists the top-level use items of a file (a use item may span
// lines, up to its ';'); items with no blank line between them share a
// group. Items inside modules and functions are indented and not listed.
func rustUses(src []string) []rustUse {
	var out []rustUse
	group := 0
	blank := false
	for i := 0; i < len(src); i++ {
		l := src[i]
		if strings.TrimSpace(l) == "" {
			blank = true
			continue
		}
		if indentOf(l) != "" || !reRustUseStart.MatchString(l) {
			if !strings.HasPrefix(strings.TrimSpace(l), "//") && !strings.HasPrefix(strings.TrimSpace(l), "#[") {
				blank = true // another item ends the group
			}
			continue
		}
		from := i
		text := l
		for !strings.Contains(rustLineCode(src[i]), ";") && i+1 < len(src) && i-from < 200 {
			i++
			text += " " + strings.TrimSpace(src[i])
		}
		if blank && len(out) > 0 {
			group++
		}
		blank = false
		p := reRustUseStart.ReplaceAllString(strings.TrimSpace(text), "")
		p = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), ";"))
		out = append(out, rustUse{from: from, to: i + 1, path: p, group: group})
	}
	return out
}

// rustLexer is the language table's row for Rust.
var rustLexer = lang.ByName("rust")

// rustLineCode is a line without its // comment.
func rustLineCode(l string) string {
	c, _ := rustLexer.SplitLine(l)
	return c
}

// rustBinds reports whether the file already binds name: a use item
// naming it (or a glob of its module), or a top-level declaration of its
// own (a method of that name binds nothing).
func rustBinds(uses []rustUse, code, p, name string) bool {
	parent := p[:strings.LastIndex(p, "::")]
	q := regexp.QuoteMeta(name)
	word := lazyre.New(`(^|[\s{,:])` + q + `($|[\s},;])|\bas\s+` + q + `\b`)
	for _, u := range uses {
		flat := strings.ReplaceAll(u.path, " ", "")
		if flat == parent+"::*" || word.MatchString(u.path) {
			return true
		}
	}
	decl := lazyre.New(`(?m)^(?:pub(?:\([\w:]+\))?\s+)?(?:struct|enum|trait|type|fn|mod|union|const|static|macro_rules!)\s+` + q + `\b`)
	return decl.MatchString(code)
}

// rustCode is a file's text with its comments blanked, for declaration
// searches; strings are kept (a declaration keyword inside a string is
// rare enough).
func rustCode(content string) string {
	var b strings.Builder
	for _, l := range strings.Split(content, "\n") {
		b.WriteString(rustLineCode(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// rustIsStd reports whether a use path is the standard library's.
func rustIsStd(p string) bool {
	root, _, _ := strings.Cut(p, "::")
	root = strings.TrimPrefix(root, "::")
	return root == "std" || root == "core" || root == "alloc"
}

// insertRustUse adds one std use line where rustfmt keeps it: in the
// group of std use items at its sorted place; in a new group before the
// file's other use items when it has none; after the inner attributes and
// the inner doc comments, set off by blank lines, when the file has no use
// item.
func insertRustUse(ls *lines, add string) {
	uses := rustUses(ls.l)
	p := strings.TrimSuffix(strings.TrimPrefix(add, "use "), ";")
	if len(uses) == 0 {
		at := rustHeaderEnd(ls.l)
		block := []string{add}
		if at > 0 && strings.TrimSpace(ls.l[at-1]) != "" {
			block = append([]string{""}, block...)
		}
		if at < len(ls.l) && strings.TrimSpace(ls.l[at]) != "" {
			block = append(block, "")
		}
		insertLines(ls, at, block)
		return
	}
	group := -1
	for _, u := range uses {
		if rustIsStd(u.path) {
			group = u.group
			break
		}
	}
	if group < 0 {
		insertLines(ls, rustAttrsAbove(ls.l, uses[0].from), []string{add, ""})
		return
	}
	at := -1
	for _, u := range uses {
		if u.group != group || !rustIsStd(u.path) {
			continue
		}
		if u.path > p {
			at = rustAttrsAbove(ls.l, u.from)
			break
		}
		at = u.to
	}
	insertLines(ls, at, []string{add})
}

// rustHeaderEnd is the line after a file's inner doc comments, inner
// attributes, and the comments and blank lines among them.
func rustHeaderEnd(src []string) int {
	at := 0
	inAttr := false
	for i, l := range src {
		t := strings.TrimSpace(l)
		switch {
		case inAttr:
			inAttr = !strings.HasSuffix(t, "]")
			at = i + 1
		case strings.HasPrefix(t, "//!"), strings.HasPrefix(t, "#!") && !strings.HasPrefix(t, "#!/"):
			at = i + 1
			inAttr = strings.HasPrefix(t, "#![") && !strings.HasSuffix(t, "]")
		case i == 0 && strings.HasPrefix(t, "#!/"):
			at = 1 // a script's shebang
		case t == "" || strings.HasPrefix(t, "//"):
		default:
			return at
		}
	}
	return at
}

// rustAttrsAbove returns the first line of the outer attributes and
// comments right above line i: they belong to the item there.
func rustAttrsAbove(src []string, i int) int {
	for i > 0 {
		t := strings.TrimSpace(src[i-1])
		if !strings.HasPrefix(t, "#[") && !(strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "//!")) {
			break
		}
		i--
	}
	return i
}
