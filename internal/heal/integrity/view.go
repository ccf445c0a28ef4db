package integrity

import (
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/lang"
	"github.com/salve-dev/salve/internal/lazyre"
)

// line is one line of a file as the rules see it.
type line struct {
	raw     string
	key     string   // the code without comments, blanks collapsed: what a move keeps
	mask    string   // the code with comments blanked and string contents replaced by blanks after one '"'
	comment string   // the comments on the line, blanks elsewhere
	strs    [][2]int // the columns of the string literals on the line
	test    bool     // inside test code

	litsDone  bool
	litsCache []string
}

// file is one side of the fix, split into lines.
type file struct {
	lines []line
	text  string // the whole mask
	offs  []int  // offset of each line in text
}

// splitLines splits s into lines without their newline; a final newline
// does not make an extra empty line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// literal words every language row shares: booleans and empty values.
var literalWord = lazyre.New(`^(true|false|True|False|nil|None|null|NULL|nullptr|undefined|NaN)$`)

// number finds a numeric literal, with its sign in unary position, or a
// word (so that digits inside a word are not a number); numberAt is the
// same anchored at the start.
var (
	number   = lazyre.New(numberRE)
	numberAt = lazyre.New(`^(?:` + numberRE + `)`)
)

const numberRE = `-?\b(0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*(\.\d+)?([eE][+-]?\d+)?)\w*\b|\b[A-Za-z_$][\w$]*`

// newFile builds the views of src for language l (nil: the raw text is
// code).
func newFile(l *lang.Language, src string) *file {
	mask := []byte(src)
	comm := make([]byte, len(src))
	for i := range comm {
		comm[i] = ' '
		if src[i] == '\n' {
			comm[i] = '\n'
		}
	}
	var strs [][2]int
	for _, s := range l.Spans(src) {
		for i := s.Start; i < s.End; i++ {
			if src[i] == '\n' {
				continue
			}
			if s.Kind == lang.Comment {
				comm[i], mask[i] = src[i], ' '
			} else if i > s.Start {
				mask[i] = ' '
			} else {
				mask[i] = '"'
			}
		}
		if s.Kind == lang.String {
			strs = append(strs, [2]int{s.Start, s.End})
		}
	}
	f := &file{text: string(mask)}
	raws, masks, comms := splitLines(src), splitLines(string(mask)), splitLines(string(comm))
	f.lines = make([]line, len(raws))
	off := 0
	for i, r := range raws {
		f.offs = append(f.offs, off)
		code := codeOf(r, comms[i])
		f.lines[i] = line{raw: r, key: strings.Join(strings.Fields(code), " "), mask: masks[i], comment: comms[i]}
		off += len(r) + 1
	}
	for _, s := range strs {
		for ln := f.lineAt(s[0]); ln < len(f.lines) && f.offs[ln] < s[1]; ln++ {
			lo, hi := max(s[0], f.offs[ln]), min(s[1], f.offs[ln]+len(f.lines[ln].raw))
			if hi > lo {
				f.lines[ln].strs = append(f.lines[ln].strs, [2]int{lo - f.offs[ln], hi - f.offs[ln]})
			}
		}
	}
	return f
}

// codeOf returns raw with the bytes that are comments (non-blank in
// comm) dropped.
func codeOf(raw, comm string) string {
	if strings.TrimSpace(comm) == "" {
		return raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if i < len(comm) && comm[i] != ' ' {
			continue
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// lits returns line ln's literals in column order: the string literals
// (the part on that line), numbers and literal words. They are computed
// on first use.
func (f *file) lits(ln int) []string {
	l := &f.lines[ln]
	if l.litsDone {
		return l.litsCache
	}
	l.litsDone = true
	type lit struct {
		col  int
		text string
	}
	var per []lit
	for _, s := range l.strs {
		per = append(per, lit{s[0], l.raw[s[0]:s[1]]})
	}
	for _, loc := range number.FindAllStringIndex(l.mask, -1) {
		w := l.mask[loc[0]:loc[1]]
		if isIdentStart(w) && !literalWord.MatchString(w) {
			continue
		}
		if w[0] == '-' && !unaryMinus(l.mask, loc[0]) {
			loc[0]++
			w = w[1:]
		}
		per = append(per, lit{loc[0], w})
	}
	sort.SliceStable(per, func(a, b int) bool { return per[a].col < per[b].col })
	for _, x := range per {
		l.litsCache = append(l.litsCache, x.text)
	}
	return l.litsCache
}

func isIdentStart(w string) bool {
	c := w[0]
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// unaryMinus reports whether the '-' at i is a sign: what precedes it is
// an operator, an opening bracket, a separator or nothing.
func unaryMinus(m string, i int) bool {
	j := i - 1
	for j >= 0 && (m[j] == ' ' || m[j] == '\t') {
		j--
	}
	return j < 0 || strings.IndexByte("([{,=:<>!&|?+-*/%;", m[j]) >= 0
}

// lineAt returns the line holding byte offset off.
func (f *file) lineAt(off int) int {
	return max(0, sort.Search(len(f.offs), func(i int) bool { return f.offs[i] > off })-1)
}

// indent is the width of the leading blanks of s, a tab counting 4.
func indent(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// blank reports whether the line has no code.
func (l *line) blank() bool { return strings.TrimSpace(l.mask) == "" }
