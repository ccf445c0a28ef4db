package ui

import (
	"html/template"
	"path"
	"strconv"
	"strings"
)

// DiffLine is one line of a unified diff, ready to render.
type DiffLine struct {
	// Kind is "add", "del", "ctx", "hunk" or "file".
	Kind string
	// Old and New are the line numbers on each side; 0 when absent.
	Old, New int
	// HTML is the highlighted text, without the diff marker.
	HTML template.HTML
}

// SplitRow is one row of a side-by-side diff.
type SplitRow struct {
	Left, Right *DiffLine
	Hunk        *DiffLine
}

// Diff is a parsed unified diff of one or more files.
type Diff struct {
	Lines []DiffLine
	Split []SplitRow
	Adds  int
	Dels  int
}

// ParseDiff parses a unified diff (as git diff or salve's patch records
// write it) and highlights each line's code by the file's extension. It
// never fails: text it does not understand is shown as context.
func ParseDiff(text string) Diff {
	var d Diff
	lang := ""
	oldN, newN := 0, 0
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "index "),
			strings.HasPrefix(l, "new file mode "), strings.HasPrefix(l, "deleted file mode "), strings.HasPrefix(l, "old mode "),
			strings.HasPrefix(l, "new mode "), strings.HasPrefix(l, "similarity index "), strings.HasPrefix(l, "rename from "),
			strings.HasPrefix(l, "rename to "), strings.HasPrefix(l, "Binary files "):
			if strings.HasPrefix(l, "+++ ") {
				lang = path.Ext(strings.TrimPrefix(strings.TrimPrefix(l, "+++ "), "b/"))
			}
			d.Lines = append(d.Lines, DiffLine{Kind: "file", HTML: template.HTML(template.HTMLEscapeString(l))})
		case strings.HasPrefix(l, "@@"):
			oldN, newN = hunkStart(l)
			d.Lines = append(d.Lines, DiffLine{Kind: "hunk", HTML: template.HTML(template.HTMLEscapeString(l))})
		case strings.HasPrefix(l, "+"):
			d.Lines = append(d.Lines, DiffLine{Kind: "add", New: newN, HTML: Highlight(l[1:], lang)})
			newN++
			d.Adds++
		case strings.HasPrefix(l, "-"):
			d.Lines = append(d.Lines, DiffLine{Kind: "del", Old: oldN, HTML: Highlight(l[1:], lang)})
			oldN++
			d.Dels++
		case strings.HasPrefix(l, `\`):
			d.Lines = append(d.Lines, DiffLine{Kind: "file", HTML: template.HTML(template.HTMLEscapeString(l))})
		default:
			body := l
			if strings.HasPrefix(l, " ") {
				body = l[1:]
			}
			d.Lines = append(d.Lines, DiffLine{Kind: "ctx", Old: oldN, New: newN, HTML: Highlight(body, lang)})
			oldN++
			newN++
		}
	}
	d.Split = split(d.Lines)
	return d
}

// hunkStart reads "@@ -a,b +c,d @@" into a and c.
func hunkStart(l string) (int, int) {
	f := strings.Fields(l)
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		s, _, _ = strings.Cut(s, ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	if len(f) < 3 {
		return 0, 0
	}
	return num(f[1]), num(f[2])
}

// split pairs a run of deletions with the additions that follow it, so
// the two sides line up.
func split(lines []DiffLine) []SplitRow {
	var rows []SplitRow
	for i := 0; i < len(lines); {
		l := &lines[i]
		switch l.Kind {
		case "hunk", "file":
			rows = append(rows, SplitRow{Hunk: l})
			i++
		case "ctx":
			rows = append(rows, SplitRow{Left: l, Right: l})
			i++
		default:
			var dels, adds []*DiffLine
			for i < len(lines) && lines[i].Kind == "del" {
				dels = append(dels, &lines[i])
				i++
			}
			for i < len(lines) && lines[i].Kind == "add" {
				adds = append(adds, &lines[i])
				i++
			}
			for j := 0; j < max(len(dels), len(adds)); j++ {
				var r SplitRow
				if j < len(dels) {
					r.Left = dels[j]
				}
				if j < len(adds) {
					r.Right = adds[j]
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// keywords are highlighted in every language: the union of the common
// ones of the languages salve heals. A word that is a keyword elsewhere is
// rarely an identifier worth less emphasis.
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`break case chan const continue default defer else fallthrough for func go goto if import
		interface map package range return select struct switch type var nil true false
		def class from as with yield lambda pass raise try except finally while in is not and or None True False async await
		fn let mut pub use mod impl trait enum match loop where self Self crate unsafe
		public private protected static void int long double float boolean char new this extends implements throws throw catch
		function export require undefined null typeof instanceof
		include define ifdef ifndef endif sizeof unsigned signed`) {
		keywords[w] = true
	}
}

// commentStart is where a line comment starts in a language, by extension.
func commentStart(lang string) []string {
	switch lang {
	case ".py", ".sh", ".rb", ".yaml", ".yml", ".toml", ".mk", "":
		return []string{"#", "//"}
	}
	return []string{"//", "/*", " * "}
}

// Highlight escapes one line of code and marks its strings, comments,
// numbers and keywords with classes (s, c, n, k). It is a small lexer, not
// a parser: good enough to read a diff, and never wrong about escaping.
func Highlight(line, lang string) template.HTML {
	var b strings.Builder
	cs := commentStart(lang)
	for i := 0; i < len(line); {
		rest := line[i:]
		for _, c := range cs {
			if strings.HasPrefix(rest, c) && (c != " * " || i == 0) {
				span(&b, "c", rest)
				return template.HTML(b.String())
			}
		}
		ch := line[i]
		switch {
		case ch == '"' || ch == '\'' || ch == '`':
			j := i + 1
			for j < len(line) && line[j] != ch {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(line))
			span(&b, "s", line[i:j])
			i = j
		case isDigit(ch) && (i == 0 || !isWord(line[i-1])):
			j := i
			for j < len(line) && (isWord(line[j]) || line[j] == '.') {
				j++
			}
			span(&b, "n", line[i:j])
			i = j
		case isWord(ch):
			j := i
			for j < len(line) && isWord(line[j]) {
				j++
			}
			if w := line[i:j]; keywords[w] {
				span(&b, "k", w)
			} else {
				b.WriteString(template.HTMLEscapeString(w))
			}
			i = j
		default:
			b.WriteString(template.HTMLEscapeString(string(ch)))
			i++
		}
	}
	return template.HTML(b.String())
}

func span(b *strings.Builder, class, text string) {
	b.WriteString(`<span class="` + class + `">`)
	b.WriteString(template.HTMLEscapeString(text))
	b.WriteString(`</span>`)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWord(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
