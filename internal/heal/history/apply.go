package history

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// errOverlap is returned by applyEdits for edits that overlap.
var errOverlap = errors.New("overlapping edits")

// applyEdits applies edits to src. Duplicates are applied once; other
// overlapping edits, or edits out of range, are an error.
func applyEdits(src string, edits []edit) (string, error) {
	es := append([]edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].start != es[j].start {
			return es[i].start < es[j].start
		}
		return es[i].end < es[j].end
	})
	var b strings.Builder
	at := 0
	for i, e := range es {
		if i > 0 && e == es[i-1] {
			continue
		}
		if e.start < at || e.end < e.start || e.end > len(src) {
			return "", fmt.Errorf("%w at byte %d", errOverlap, e.start)
		}
		b.WriteString(src[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(src[at:])
	return b.String(), nil
}

// callEdit returns the edit that makes ch of call c of src: the argument
// inserted before the one at ch.Index (after the last one when it is
// past them), or the argument at ch.Index removed with its separator. The
// call must have ch.Before arguments.
func callEdit(src string, c call, ch ArgChange) (edit, error) {
	n := len(c.args)
	if n != ch.Before || ch.Index < 0 {
		return edit{}, fmt.Errorf("the call of %s has %d arguments, the commit's calls had %d", c.name, n, ch.Before)
	}
	if ch.Delta > 0 {
		switch {
		case ch.Index > n:
			return edit{}, fmt.Errorf("argument %d of a call of %s with %d", ch.Index+1, c.name, n)
		case n == 0:
			return edit{c.open + 1, c.open + 1, ch.Text}, nil
		case ch.Index < n:
			at := c.args[ch.Index].start
			return edit{at, at, ch.Text + ", "}, nil
		}
		at := c.args[n-1].end
		return edit{at, at, ", " + ch.Text}, nil
	}
	if ch.Index >= n {
		return edit{}, fmt.Errorf("argument %d of a call of %s with %d", ch.Index+1, c.name, n)
	}
	switch {
	case n == 1:
		return edit{c.args[0].start, c.args[0].end, ""}, nil
	case ch.Index < n-1:
		return edit{c.args[ch.Index].start, c.args[ch.Index+1].start, ""}, nil
	}
	if c.trailingComa {
		// f(\n\ta,\n\tb,\n): drop "\n\tb," and keep the layout.
		comma := c.args[n-1].end + strings.IndexByte(src[c.args[n-1].end:c.close], ',')
		sep := c.args[n-2].end + strings.IndexByte(src[c.args[n-2].end:c.args[n-1].start], ',')
		return edit{sep + 1, comma + 1, ""}, nil
	}
	return edit{c.args[n-2].end, c.args[n-1].end, ""}, nil
}

// applyCalls applies ch to every call of cs in src that has ch.Before
// arguments.
func applyCalls(src string, cs []call, ch ArgChange) (string, error) {
	var es []edit
	for _, c := range cs {
		if len(c.args) != ch.Before {
			continue
		}
		e, err := callEdit(src, c, ch)
		if err != nil {
			return "", err
		}
		es = append(es, e)
	}
	if len(es) == 0 {
		return "", errors.New("no call to change")
	}
	return applyEdits(src, es)
}
