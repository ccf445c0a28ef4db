package executor

import (
	"fmt"
	"strings"
	"sync"
)

// Excerpt defaults: the first and last lines kept, and the longest line.
const (
	DefaultExcerptHead    = 40
	DefaultExcerptTail    = 80
	DefaultExcerptLineMax = 512
)

// Excerpt is an io.Writer that keeps the first and last lines of a log in
// bounded memory, for contract.ExecutorOutput.LogExcerpt. Lines longer than
// the line cap are cut with a marker. It is safe for concurrent use. The
// zero value is not usable; use [NewExcerpt].
type Excerpt struct {
	mu                    sync.Mutex
	headN, tailN, lineMax int
	head                  []string
	tail                  []string // ring of the last tailN lines
	tailPos               int
	cur                   []byte // the line being written, capped at lineMax
	curLen                int    // its real length
	lines                 int64  // complete lines seen
}

// NewExcerpt returns an Excerpt keeping head and tail lines of at most
// lineMax bytes each; values <= 0 take the defaults.
func NewExcerpt(head, tail, lineMax int) *Excerpt {
	if head <= 0 {
		head = DefaultExcerptHead
	}
	if tail <= 0 {
		tail = DefaultExcerptTail
	}
	if lineMax <= 0 {
		lineMax = DefaultExcerptLineMax
	}
	return &Excerpt{headN: head, tailN: tail, lineMax: lineMax}
}

// Write records p. It never fails.
func (e *Excerpt) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := indexNL(p)
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := e.lineMax - len(e.cur); room > 0 {
			e.cur = append(e.cur, chunk[:min(room, len(chunk))]...)
		}
		e.curLen += len(chunk)
		if i < 0 {
			break
		}
		e.push(e.finish())
		e.cur, e.curLen = e.cur[:0], 0
		p = p[i+1:]
	}
	return n, nil
}

func indexNL(p []byte) int {
	for i, c := range p {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// finish renders the current line, with a cut marker when it was too long.
func (e *Excerpt) finish() string {
	s := strings.ToValidUTF8(string(e.cur), "\uFFFD")
	if e.curLen > len(e.cur) {
		s += fmt.Sprintf(" …[%d bytes cut]", e.curLen-len(e.cur))
	}
	return s
}

func (e *Excerpt) push(line string) {
	e.lines++
	if len(e.head) < e.headN {
		e.head = append(e.head, line)
		return
	}
	if len(e.tail) < e.tailN {
		e.tail = append(e.tail, line)
		return
	}
	e.tail[e.tailPos] = line
	e.tailPos = (e.tailPos + 1) % e.tailN
}

// Lines returns how many lines were written, counting an unterminated last
// line.
func (e *Excerpt) Lines() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.curLen > 0 {
		return e.lines + 1
	}
	return e.lines
}

// String returns the kept lines, each ending in a newline. When lines were
// dropped, the line "... [N lines omitted] ..." stands between the head and
// the tail.
func (e *Excerpt) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	head := e.head
	tail := append(append([]string(nil), e.tail[e.tailPos:]...), e.tail[:e.tailPos]...)
	total := e.lines
	if e.curLen > 0 { // an unterminated last line counts as a line
		total++
		last := e.finish()
		switch {
		case len(head) < e.headN:
			head = append(append([]string(nil), head...), last)
		case len(tail) < e.tailN:
			tail = append(tail, last)
		default:
			tail = append(tail[1:], last)
		}
	}
	var b strings.Builder
	for _, l := range head {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if omitted := total - int64(len(head)+len(tail)); omitted > 0 {
		fmt.Fprintf(&b, "... [%d lines omitted] ...\n", omitted)
	}
	for _, l := range tail {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
