package server

import (
	"testing"

	"github.com/salve-dev/salve/contract"
)

// TestShowFile: git_show_file prints a file as a commit holds it, never
// the work tree's copy; a file the commit lacks is git's error; paths
// outside the repository, absolute or unclean, and refs with ':' are
// refused before git runs.
func TestShowFile(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "conf/.salve.yml", "mode: pr\n")
	git(t, repo, "add", "--", "conf/.salve.yml")
	git(t, repo, "commit", "-q", "-m", "config")
	writeFile(t, repo, "conf/.salve.yml", "mode: suggest\n")
	git(t, repo, "commit", "-q", "-am", "change")
	writeFile(t, repo, "conf/.salve.yml", "heal: false\n") // uncommitted
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"the base commit", `{"ref":"HEAD^1","files":["conf/.salve.yml"]}`, "mode: pr\n"},
		{"HEAD, not the work tree", `{"files":["conf/.salve.yml"]}`, "mode: suggest\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := execIn(t, repo, request(ActionGitShowFile, tc.payload))
			if res.OutputType == contract.OutputError || res.Data != tc.want {
				t.Fatalf("got %q (%v), want %q", res.Data, res.Metadata, tc.want)
			}
		})
	}
	res := execIn(t, repo, request(ActionGitShowFile, `{"ref":"HEAD~2","files":["conf/.salve.yml"]}`))
	wantFailure(t, res, KindGitFailed, 128)
	for _, bad := range []string{
		`{"files":["../x"]}`, `{"files":["/etc/passwd"]}`, `{"files":["a/../b"]}`, `{"files":["-x"]}`, `{"files":[]}`,
		`{"files":["a","b"]}`, `{"ref":"HEAD:a.txt","files":["x"]}`, `{"ref":"--output=x","files":["a.txt"]}`,
	} {
		if _, err := Decode([]byte(request(ActionGitShowFile, bad))); err == nil {
			t.Errorf("payload %s accepted", bad)
		}
	}
}
