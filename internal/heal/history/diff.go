package history

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/salve-dev/salve/internal/lazyre"
)

// Limits of [ParseDiff]: a diff comes from a repository and is hostile
// text.
const (
	// MaxDiffBytes is the largest diff parsed.
	MaxDiffBytes = 8 << 20
	// MaxFiles is the most files a diff may hold.
	MaxFiles = 5000
	// MaxHunks is the most hunks a diff may hold, over all its files.
	MaxHunks = 50000
	// MaxLineBytes is the longest diff line kept whole; a longer one is
	// cut there and marked [Line.Cut].
	MaxLineBytes = 4096
	// maxHunkLines bounds the line counts of one hunk header.
	maxHunkLines = 1 << 20
	// maxPath bounds a file path of the diff.
	maxPath = 4096
)

// ErrDiff is wrapped by [ParseDiff] for a diff it cannot read: too large,
// or malformed (a hunk whose lines do not match its header).
var ErrDiff = errors.New("history: bad diff")

// Op says what a diff line does.
type Op byte

// The ops, as a unified diff writes them.
const (
	Context Op = ' '
	Removed Op = '-'
	Added   Op = '+'
)

// Line is one line of a hunk, without its op character or newline.
type Line struct {
	Op   Op
	Text string
	// Cut says Text is the first MaxLineBytes of a longer line.
	Cut bool
}

// Hunk is one "@@ -a,b +c,d @@" section of a file's diff.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []Line
}

// File is one file of a diff. A path is empty for /dev/null (a created or
// deleted file) and when the diff's path is not a clean repository path
// (absolute, with "..", a NUL or a bad quote).
type File struct {
	OldPath, NewPath string
	Hunks            []Hunk
}

// Path returns the file's new path, or its old one when it was deleted.
func (f File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

var hunkHeader = lazyre.New(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// diffParser holds the state of one ParseDiff.
type diffParser struct {
	files          []File
	hunks          int
	remOld, remNew int // lines still due in the current hunk
}

// ParseDiff reads a unified diff, as `git diff` or `git show` print it
// (text before the first file, such as a commit header, is skipped). It
// returns an error wrapping [ErrDiff] when the text is larger than
// [MaxDiffBytes], holds more than [MaxFiles] files or [MaxHunks] hunks,
// or has a hunk whose lines do not match its header. Lines longer than
// [MaxLineBytes] are cut.
func ParseDiff(text string) ([]File, error) {
	if len(text) > MaxDiffBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrDiff, len(text), MaxDiffBytes)
	}
	p := &diffParser{}
	n := 0
	for len(text) > 0 {
		n++
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if err := p.line(strings.TrimSuffix(line, "\r")); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrDiff, n, err)
		}
	}
	if p.remOld > 0 || p.remNew > 0 {
		return nil, fmt.Errorf("%w: the last hunk is short of %d old and %d new lines", ErrDiff, p.remOld, p.remNew)
	}
	return p.files, nil
}

// line reads one line of the diff.
func (p *diffParser) line(l string) error {
	if p.remOld > 0 || p.remNew > 0 {
		return p.hunkLine(l)
	}
	switch {
	case strings.HasPrefix(l, "diff "):
		return p.newFile()
	case strings.HasPrefix(l, "--- "):
		if len(p.files) == 0 || len(p.cur().Hunks) > 0 || p.cur().OldPath != "" || p.cur().NewPath != "" {
			if err := p.newFile(); err != nil {
				return err
			}
		}
		p.cur().OldPath = diffPath(l[4:], "a/")
	case strings.HasPrefix(l, "+++ ") && len(p.files) > 0:
		p.cur().NewPath = diffPath(l[4:], "b/")
	case strings.HasPrefix(l, "@@ "):
		return p.hunk(l)
	case len(p.files) > 0 && len(p.cur().Hunks) > 0 && (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")):
		return errors.New("a changed line after its hunk's end")
	}
	return nil
}

func (p *diffParser) cur() *File { return &p.files[len(p.files)-1] }

func (p *diffParser) newFile() error {
	if len(p.files) >= MaxFiles {
		return fmt.Errorf("more than %d files", MaxFiles)
	}
	p.files = append(p.files, File{})
	return nil
}

// hunk starts a hunk from its header.
func (p *diffParser) hunk(l string) error {
	m := hunkHeader.FindStringSubmatch(l)
	if m == nil {
		return fmt.Errorf("bad hunk header %.60q", l)
	}
	if len(p.files) == 0 {
		return errors.New("a hunk before any file header")
	}
	if p.hunks >= MaxHunks {
		return fmt.Errorf("more than %d hunks", MaxHunks)
	}
	var v [4]int
	for i, s := range m[1:] {
		v[i] = 1
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n > maxHunkLines {
			return fmt.Errorf("hunk header number %.20q out of range", s)
		}
		v[i] = n
	}
	p.hunks++
	f := p.cur()
	f.Hunks = append(f.Hunks, Hunk{OldStart: v[0], OldLines: v[1], NewStart: v[2], NewLines: v[3]})
	p.remOld, p.remNew = v[1], v[3]
	return nil
}

// hunkLine reads one line inside a hunk.
func (p *diffParser) hunkLine(l string) error {
	op := Context
	if l != "" {
		op = Op(l[0])
		l = l[1:]
	}
	switch op {
	case Context:
		p.remOld--
		p.remNew--
	case Removed:
		p.remOld--
	case Added:
		p.remNew--
	case '\\': // "\ No newline at end of file"
		return nil
	default:
		return fmt.Errorf("a hunk line starting with %q", byte(op))
	}
	if p.remOld < 0 || p.remNew < 0 {
		return errors.New("a hunk longer than its header says")
	}
	ln := Line{Op: op, Text: l}
	if len(l) > MaxLineBytes {
		cut := MaxLineBytes
		for cut > 0 && !utf8.RuneStart(l[cut]) {
			cut--
		}
		ln.Text, ln.Cut = l[:cut], true
	}
	h := &p.cur().Hunks[len(p.cur().Hunks)-1]
	h.Lines = append(h.Lines, ln)
	return nil
}

// diffPath turns the path of a "---" or "+++" line into a repository path:
// quotes undone, the prefix (a/ or b/) and a trailing tab-separated date
// removed, "" for /dev/null or a path that is not clean.
func diffPath(s, prefix string) string {
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return ""
		}
		s = u
	} else if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	if s == "/dev/null" {
		return ""
	}
	s = strings.TrimPrefix(s, prefix)
	if s == "" || len(s) > maxPath || strings.HasPrefix(s, "/") || strings.ContainsAny(s, "\x00\\") || !utf8.ValidString(s) {
		return ""
	}
	if c := path.Clean(s); c != s || c == ".." || strings.HasPrefix(c, "../") {
		return ""
	}
	return s
}
