package target

import (
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestGoReached: the test calls Parse; a slip three calls down (parseNote,
// parseArgs, a method of tokens) fails it too, so those functions follow
// Parse as Reached, nearest first. What another package's selector names
// (strings.TrimSpace) and what nothing calls (Format) stay out.
func TestGoReached(t *testing.T) {
	bug := contract.BugReport{FilePath: "notes/notes_test.go", LineNumber: 8, Message: "notes_test.go:8: Parse = []", TestName: strp("TestParse")}
	got, err := Resolve(context.Background(), "testdata/gomod", bug, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		symbol  string
		reached bool
	}{
		{"notes.Parse", false},
		{"notes.newTokens", true},
		{"notes.parseComment", true},
		{"notes.(*tokens).more", true},
		{"notes.parseNote", true},
		{"notes.(*tokens).next", true},
		{"notes.(*tokens).peek", true},
		{"notes.parseArgs", true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d regions, want %d:\n%s", len(got), len(want), regions(got))
	}
	for i, w := range want {
		if got[i].Symbol != w.symbol || got[i].Reached != w.reached || got[i].Path != "notes/notes.go" {
			t.Errorf("region %d = %v (reached %v), want %s (reached %v)\nall:\n%s", i, got[i], got[i].Reached, w.symbol, w.reached, regions(got))
		}
	}
	if got[4].Why != "called by notes.parseComment, which the code under test reaches" {
		t.Errorf("parseNote's why: %q", got[4].Why)
	}
}

// TestGoReachedLeavesSharedHelpers: IsPalindrome calls normalise and
// reverse; SortKey calls normalise too, so a fix of normalise would change
// SortKey (the red-team corpus's outside-function cheat): only reverse,
// which the code under test alone calls, is reached.
func TestGoReachedLeavesSharedHelpers(t *testing.T) {
	bug := contract.BugReport{FilePath: "words/words_test.go", LineNumber: 7, Message: "words_test.go:7: IsPalindrome = false", TestName: strp("TestIsPalindrome")}
	got, err := Resolve(context.Background(), "testdata/gomod", bug, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var symbols []string
	for _, g := range got {
		symbols = append(symbols, g.Symbol)
	}
	if strings.Join(symbols, " ") != "words.IsPalindrome words.reverse" {
		t.Errorf("regions %q, want IsPalindrome, then reverse alone\n%s", symbols, regions(got))
	}
}
