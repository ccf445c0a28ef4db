package logparse

// span is a run of changed lines of a file's old text, 1-based and
// inclusive; a pure insertion has lo == hi+1 (lines are inserted after hi).
type span struct{ lo, hi int }

// maxDiffEdits bounds the edit distance diffSpans computes: a formatter
// diff is local, and a larger one is reported as one span.
const maxDiffEdits = 2000

// diffSpans returns the runs of lines of a that differ from b, by a
// shortest edit script (Myers' algorithm, bounded by maxDiffEdits). ok is
// false when the bound was reached.
func diffSpans(a, b []string) ([]span, bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(am) == 0 && len(bm) == 0 {
		return nil, true
	}
	match, ok := commonLines(am, bm)
	if !ok {
		return []span{{pre + 1, pre + len(am)}}, false
	}
	var out []span
	for i, j := 0, 0; i < len(am) || j < len(bm); {
		if i < len(am) && match[i] == j {
			i, j = i+1, j+1
			continue
		}
		lo := i
		for i < len(am) && match[i] < 0 {
			i++
		}
		j = len(bm)
		if i < len(am) {
			j = match[i]
		}
		out = append(out, span{pre + lo + 1, pre + i})
	}
	return out, true
}

// commonLines returns, for each line of a, the index of the line of b a
// longest common subsequence pairs it with (-1 when none), by Myers' O(ND)
// algorithm.
func commonLines(a, b []string) ([]int, bool) {
	n, m := len(a), len(b)
	maxD := min(n+m, maxDiffEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, d, off), true
			}
		}
	}
	return nil, false
}

// backtrack walks the trace of commonLines back to pair the kept lines.
func backtrack(a, b []string, trace [][]int, d, off int) []int {
	keep := make([]int, len(a))
	for i := range keep {
		keep[i] = -1
	}
	x, y := len(a), len(b)
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := v[off+pk]
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			keep[x] = y
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		keep[x] = y
	}
	return keep
}

// reportLine is the line a report of a changed run names: the middle of
// the run, so that the fix gate's window of ±3 lines holds a run of up to
// seven lines; for an insertion, the line it follows (1 at the top).
func (s span) reportLine() int {
	if s.hi < s.lo {
		return max(s.hi, 1)
	}
	return (s.lo + s.hi) / 2
}
