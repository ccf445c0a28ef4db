package worker

import (
	"maps"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/gitagent/server"
)

// TestParseHeads reads git ls-remote --symref answers: the default branch
// and the commits of HEAD and of the refs asked for, by exact name.
func TestParseHeads(t *testing.T) {
	const a, b = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	tests := []struct {
		name, out string
		refs      []string
		head      string
		commits   map[string]string
	}{
		{"default branch and a ref", "ref: refs/heads/main\tHEAD\n" + a + "\tHEAD\n" + b + "\trefs/heads/dev\n", []string{"refs/heads/dev"},
			"main", map[string]string{"HEAD": a, "refs/heads/dev": b}},
		{"a longer name ending alike is not the ref", a + "\trefs/heads/x/refs/heads/dev\n", []string{"refs/heads/dev"}, "", map[string]string{}},
		{"a symref of another ref is not HEAD's", "ref: refs/heads/evil\trefs/remotes/origin/HEAD\n", nil, "", map[string]string{}},
		{"no HEAD: an empty repository", "", []string{"refs/heads/main"}, "", map[string]string{}},
		{"a default branch no branch name", "ref: refs/heads/*:x\tHEAD\n" + a + "\tHEAD\n", nil, "", map[string]string{"HEAD": a}},
		{"noise", "garbage\n\t\n\tHEAD\nref: \n", nil, "", map[string]string{"HEAD": ""}},
	}
	for _, tt := range tests {
		head, commits := parseHeads(tt.out, tt.refs)
		if head != tt.head || !maps.Equal(commits, tt.commits) {
			t.Errorf("%s: %q %v, want %q %v", tt.name, head, commits, tt.head, tt.commits)
		}
	}
}

// FuzzParseHeads: whatever a remote answers, parseHeads returns only the
// commits of HEAD and of the names asked for, and a default branch from a
// line of HEAD's own that is a branch name.
func FuzzParseHeads(f *testing.F) {
	f.Add("ref: refs/heads/main\tHEAD\n1111\tHEAD\n2222\trefs/heads/dev\n")
	f.Add("ref: refs/heads/a\tb\tHEAD\n\n\t\t\n")
	f.Fuzz(func(t *testing.T, out string) {
		refs := []string{"refs/heads/dev"}
		head, commits := parseHeads(out, refs)
		for name := range commits {
			if name != "HEAD" && name != refs[0] {
				t.Fatalf("a commit of %q, which was not asked for", name)
			}
		}
		if head != "" && (!strings.Contains(out, "ref: refs/heads/"+head+"\tHEAD") || server.ValidateBranchName(head) != nil) {
			t.Fatalf("default branch %q", head)
		}
	})
}
