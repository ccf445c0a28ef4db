package logparse

import (
	"strconv"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// places indexes reports by "file:line": the positions in the output of the
// reports at that place, in order. Most places hold one report; a line
// with two undefined names, or a linter's two rules, holds more. The zero
// value is not ready: use newPlaces.
type places struct {
	first map[string]int   // the first report at each place
	more  map[string][]int // the others, for the few places that have more
}

func newPlaces() places { return places{first: map[string]int{}} }

// add records that out[i] is at key; the index keeps its own copy of key.
func (ps *places) add(key string, i int) {
	if _, ok := ps.first[key]; !ok {
		ps.first[own(key)] = i
		return
	}
	if ps.more == nil {
		ps.more = map[string][]int{}
	}
	k := own(key) // key itself is never stored: it can then stay off the heap
	ps.more[k] = append(ps.more[k], i)
}

// find returns the index of the report at key that the one described by
// col, typ and msg repeats, or -1 when it is a new error.
//
// Two reports at the same file and line are one error printed twice when
// they have the same error type and the same message (spaces around it
// aside), and the same column when both know theirs. Tools that print an
// error more than once print it the same way each time: go vet and then go
// build or go test on the same package, make running a compiler twice,
// MSBuild's and Maven's recaps, the pytest section and the traceback it
// holds. Two different errors on one line differ in their column (gcc,
// clang, go, rustc, tsc, ESLint, javac's caret), in their message (the
// name that is undefined, the rule that fired), or in both, and both are
// kept.
func (ps *places) find(out []contract.BugReport, key string, col int, typ contract.ErrorType, msg string) int {
	first, ok := ps.first[key]
	if !ok {
		return -1
	}
	if sameError(out[first], col, typ, msg) {
		return first
	}
	for _, i := range ps.more[key] {
		if sameError(out[i], col, typ, msg) {
			return i
		}
	}
	return -1
}

// sameError reports whether r is the error at its place with the column
// col (0 when unknown), the type typ and the message msg.
func sameError(r contract.BugReport, col int, typ contract.ErrorType, msg string) bool {
	if r.ErrorType != typ || (r.Column > 0 && col > 0 && r.Column != col) {
		return false
	}
	return strings.TrimSpace(r.Message) == strings.TrimSpace(msg)
}

// placeKey is a report's place, as places keys it.
func placeKey(r contract.BugReport) string { return r.FilePath + ":" + strconv.Itoa(r.LineNumber) }

// dedupe drops the reports that repeat an earlier one (see places.find),
// once their paths have changed; a dropped report's test name goes to the
// one kept, when it had none. It returns the reports kept and their index.
func dedupe(out []contract.BugReport) ([]contract.BugReport, places) {
	ps := newPlaces()
	kept := out[:0]
	for _, r := range out {
		k := placeKey(r)
		if i := ps.find(kept, k, r.Column, r.ErrorType, r.Message); i >= 0 {
			if kept[i].TestName == nil && r.TestName != nil {
				kept[i].TestName = r.TestName
			}
			continue
		}
		ps.add(k, len(kept))
		kept = append(kept, r)
	}
	return kept, ps
}
