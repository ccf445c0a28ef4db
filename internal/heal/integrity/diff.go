package integrity

// hunk is one changed region of the line diff: old lines [oldLo, oldHi)
// became new lines [newLo, newHi), 0-based.
type hunk struct{ oldLo, oldHi, newLo, newHi int }

// maxDiffCells bounds the LCS table; past it the whole middle is one hunk.
const maxDiffCells = 4_000_000

// diff returns the hunks that turn a into b, comparing lines by key.
// Common prefix and suffix are trimmed first, then the middle is diffed by
// longest common subsequence.
func diff(a, b []line) []hunk {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre].key == b[pre].key {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf].key == b[len(b)-1-suf].key {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(am) == 0 && len(bm) == 0 {
		return nil
	}
	if len(am) == 0 || len(bm) == 0 || len(am)*len(bm) > maxDiffCells {
		return []hunk{{pre, pre + len(am), pre, pre + len(bm)}}
	}
	n, m := len(am), len(bm)
	ids := map[string]int32{}
	intern := func(ls []line) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l.key]
			if !ok {
				id = int32(len(ids))
				ids[l.key] = id
			}
			out[i] = id
		}
		return out
	}
	ai, bi := intern(am), intern(bm)
	// t[i*(m+1)+j] is the LCS length of am[i:] and bm[j:].
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case ai[i] == bi[j]:
				t[i*(m+1)+j] = at(i+1, j+1) + 1
			default:
				t[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	var hs []hunk
	open := false
	i, j := 0, 0
	for i < n || j < m {
		if i < n && j < m && ai[i] == bi[j] {
			open = false
			i, j = i+1, j+1
			continue
		}
		if !open {
			hs = append(hs, hunk{pre + i, pre + i, pre + j, pre + j})
			open = true
		}
		h := &hs[len(hs)-1]
		if j < m && (i == n || at(i, j+1) >= at(i+1, j)) {
			j++
			h.newHi = pre + j
		} else {
			i++
			h.oldHi = pre + i
		}
	}
	return hs
}

// nearest returns the index of the hunk closest to lines [lo, hi] of one
// side (old when old is true), or -1 when there are no hunks.
func nearest(hs []hunk, lo, hi int, old bool) int {
	best, bestD := -1, 0
	for k, h := range hs {
		a, b := h.newLo, h.newHi
		if old {
			a, b = h.oldLo, h.oldHi
		}
		d := 0
		switch {
		case hi < a-1:
			d = a - 1 - hi
		case lo > b:
			d = lo - b
		}
		if best < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
