package server

import (
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestEveryFieldDecodes: each field an action reads has a decoder, so a
// new field cannot reach the decoder loop without one.
func TestEveryFieldDecodes(t *testing.T) {
	for name, spec := range actionTable {
		for _, f := range spec.fields {
			if fieldTable[f] == nil {
				t.Errorf("action %s reads field %q, which has no decoder", name, f)
			}
		}
	}
}

func TestCheckPushLease(t *testing.T) {
	hash := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		branch, lease string
		ok            bool
	}{
		{"salve/heal-pr/main", hash, true},
		{"salve/heal-pr/main", "", true},
		{"", hash, false},
		{"b", "HEAD", false},
		{"b", "0123abc", false},
		{"b", "--force", false},
		{"b", "0123456789ABCDEF0123456789ABCDEF01234567", false},
	} {
		cmd := contract.GitAgentCommandV1{Type: contract.ActionGitPush, Branch: tc.branch, ForceWithLease: tc.lease}
		if err := checkPush(&cmd); (err == nil) != tc.ok {
			t.Errorf("branch %q lease %q: %v, want ok=%v", tc.branch, tc.lease, err, tc.ok)
		}
	}
	args, _ := actionTable[contract.ActionGitPush].build(contract.GitAgentCommandV1{Remote: "origin", Branch: "b", ForceWithLease: hash}, nil)
	want := []string{"push", "--porcelain", "--force-with-lease=refs/heads/b:" + hash, "--end-of-options", "origin", "refs/heads/b:refs/heads/b"}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Errorf("args %q", args)
	}
}
