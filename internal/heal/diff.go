package heal

import (
	"fmt"
	"strings"
)

// Hunk is one changed region of a line diff, in the original file's
// coordinates: lines OldStart..OldStart+len(Old)-1 were replaced by New.
// A pure insertion has no Old lines and goes before line OldStart.
type Hunk struct {
	OldStart int
	Old      []string
	New      []string
}

// splitLines splits s into lines without their newline. A final newline
// does not make an extra empty line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// maxDiffCells bounds the LCS table; beyond it the whole middle is one hunk.
const maxDiffCells = 4_000_000

// LineDiff returns the hunks that turn a into b. Common prefix and suffix
// are trimmed first, then the middle is diffed by longest common
// subsequence, so small edits in big files stay cheap.
func LineDiff(a, b string) []Hunk {
	al, bl := splitLines(a), splitLines(b)
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	am, bm := al[pre:len(al)-suf], bl[pre:len(bl)-suf]
	if len(am) == 0 && len(bm) == 0 {
		return nil
	}
	if len(am)*len(bm) > maxDiffCells || len(am) == 0 || len(bm) == 0 {
		return []Hunk{{OldStart: pre + 1, Old: am, New: bm}}
	}
	return lcsHunks(am, bm, pre)
}

func lcsHunks(a, b []string, offset int) []Hunk {
	n, m := len(a), len(b)
	// t[i][j] = LCS length of a[i:], b[j:].
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var hunks []Hunk
	var cur *Hunk
	flush := func() {
		if cur != nil {
			hunks = append(hunks, *cur)
			cur = nil
		}
	}
	open := func(i int) {
		if cur == nil {
			cur = &Hunk{OldStart: offset + i + 1}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			flush()
			i, j = i+1, j+1
		case j < m && (i == n || t[i][j+1] >= t[i+1][j]):
			open(i)
			cur.New = append(cur.New, b[j])
			j++
		default:
			open(i)
			cur.Old = append(cur.Old, a[i])
			i++
		}
	}
	flush()
	return hunks
}

// UnifiedDiff renders hunks as a compact unified diff of path, for records
// and previous_attempt_info. It has no context lines.
func UnifiedDiff(path string, hunks []Hunk) string {
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", path, path)
	shift := 0
	for _, h := range hunks {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.OldStart, len(h.Old), h.OldStart+shift, len(h.New))
		for _, l := range h.Old {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range h.New {
			b.WriteString("+" + l + "\n")
		}
		shift += len(h.New) - len(h.Old)
	}
	return b.String()
}

// DiffContext is the number of context lines of a patch.
const DiffContext = 3

// Patch renders the change from a to b as a unified diff of path with
// DiffContext lines of context, which `git apply` accepts. It is "" when
// nothing changed.
func Patch(path, a, b string) string {
	hunks := LineDiff(a, b)
	if len(hunks) == 0 {
		return ""
	}
	al := splitLines(a)
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", path, path)
	shift := 0 // new minus old line count before the current group
	for i := 0; i < len(hunks); {
		j := i + 1
		for j < len(hunks) && hunks[j].OldStart-DiffContext <= hunkEnd(hunks[j-1])+DiffContext+1 {
			j++
		}
		shift = writeGroup(&out, al, hunks[i:j], shift)
		i = j
	}
	return out.String()
}

// hunkEnd is the last original line a hunk replaces (the line before it for
// a pure insertion).
func hunkEnd(h Hunk) int { return h.OldStart + len(h.Old) - 1 }

// writeGroup writes one @@ group of hunks with their context and returns
// the shift after it.
func writeGroup(out *strings.Builder, al []string, group []Hunk, shift int) int {
	start := max(1, group[0].OldStart-DiffContext)
	end := min(len(al), hunkEnd(group[len(group)-1])+DiffContext)
	var body strings.Builder
	oldN, newN := 0, 0
	line := start
	for _, h := range group {
		for ; line < h.OldStart; line++ {
			body.WriteString(" " + al[line-1] + "\n")
			oldN, newN = oldN+1, newN+1
		}
		for _, l := range h.Old {
			body.WriteString("-" + l + "\n")
		}
		for _, l := range h.New {
			body.WriteString("+" + l + "\n")
		}
		oldN, newN = oldN+len(h.Old), newN+len(h.New)
		line = h.OldStart + len(h.Old)
	}
	for ; line <= end; line++ {
		body.WriteString(" " + al[line-1] + "\n")
		oldN, newN = oldN+1, newN+1
	}
	oldStart, newStart := start, start+shift
	if oldN == 0 {
		oldStart--
	}
	if newN == 0 {
		newStart--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n%s", oldStart, oldN, newStart, newN, body.String())
	for _, h := range group {
		shift += len(h.New) - len(h.Old)
	}
	return shift
}
