// Package notes reads "name(args)" notes from comments.
package notes

import (
	"strings"
)

// Note is one note of a comment.
type Note struct {
	Name string
	Args []string
}

// Parse returns the notes of the comment text.
func Parse(text string) []Note {
	t := newTokens(text)
	return parseComment(t)
}

func parseComment(t *tokens) []Note {
	var notes []Note
	for t.more() {
		notes = append(notes, parseNote(t))
	}
	return notes
}

func parseNote(t *tokens) Note {
	n := Note{Name: t.next()}
	if t.peek() == "(" {
		n.Args = parseArgs(t)
	}
	return n
}

func parseArgs(t *tokens) []string {
	var args []string
	for t.next(); t.peek() != ")" && t.more(); {
		args = append(args, strings.TrimSpace(t.next()))
	}
	return args
}

type tokens struct {
	words []string
}

func newTokens(text string) *tokens {
	return &tokens{words: strings.Fields(text)}
}

func (t *tokens) more() bool { return len(t.words) > 0 }

func (t *tokens) peek() string {
	if !t.more() {
		return ""
	}
	return t.words[0]
}

func (t *tokens) next() string {
	w := t.peek()
	if t.more() {
		t.words = t.words[1:]
	}
	return w
}

// TrimSpace is named like strings.TrimSpace, which parseArgs calls: it is
// not reached.
func TrimSpace(s string) string { return s }

// Format is called by nothing the test reaches.
func Format(n Note) string {
	return n.Name + "(" + strings.Join(n.Args, ",") + ")"
}
