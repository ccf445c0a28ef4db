package server

import (
	"context"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
)

func TestParseIdentity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" when refused
	}{
		{"salve[bot] <salve[bot]@users.noreply.github.com>", "salve[bot] <salve[bot]@users.noreply.github.com>"},
		{"  Ada Lovelace   <ada@example.com> ", "Ada Lovelace <ada@example.com>"},
		{"<a@b>", ""},
		{"name <>", ""},
		{"name a@b", ""},
		{"name <a@b> tail", ""},
		{"na<me <a@b>", ""},
		{"name <a\n@b>", ""},
		{"", ""},
	} {
		id, ok := ParseIdentity(tc.in)
		if got := map[bool]string{true: id.String(), false: ""}[ok]; got != tc.want {
			t.Errorf("ParseIdentity(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDefaultIdentity: a commit where git knows no identity is made as
// the default identity; a configured identity, in the repository or in
// the environment, always wins.
func TestDefaultIdentity(t *testing.T) {
	bot := &Identity{Name: "salve[bot]", Email: "salve[bot]@users.noreply.github.com"}
	for _, tc := range []struct {
		name     string
		config   bool     // the repository has user.name and user.email
		env      []string // extra environment of git
		identity *Identity
		want     string // the author of the commit, or "" when it must fail
	}{
		{"no identity, no default: git fails", false, nil, nil, ""},
		{"no identity: the default", false, nil, bot, "salve[bot] <salve[bot]@users.noreply.github.com>"},
		{"repository identity wins", true, nil, bot, "Salve Test <test@salve.invalid>"},
		{"environment identity wins", false, []string{"GIT_AUTHOR_NAME=Env Author", "GIT_AUTHOR_EMAIL=env@example.com",
			"GIT_COMMITTER_NAME=Env Committer", "GIT_COMMITTER_EMAIL=envc@example.com"}, bot, "Env Author <env@example.com>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			if !tc.config {
				git(t, dir, "config", "--unset", "user.name")
				git(t, dir, "config", "--unset", "user.email")
			}
			writeFile(t, dir, "a.txt", "beta\n")
			git(t, dir, "add", "--", "a.txt")
			r := &Runner{Dir: dir, DefaultIdentity: tc.identity, Env: append(GitEnv(), append(tc.env, "EMAIL=")...)}
			msg := "change a"
			res := r.Execute(context.Background(), &Request{Action: contract.ActionGitCommit, Command: contract.GitAgentCommandV1{Message: &msg}})
			if tc.want == "" {
				if res.OutputType != contract.OutputError {
					t.Fatalf("the commit succeeded with no identity: %+v", res)
				}
				return
			}
			if res.OutputType == contract.OutputError {
				t.Fatalf("commit failed: %+v", res)
			}
			if got := strings.TrimSpace(git(t, dir, "log", "-1", "--format=%an <%ae>")); got != tc.want {
				t.Errorf("author %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCommitDiff: git_commit_diff shows the change a commit made against
// its first parent, and a root commit, with no parent, is an error.
func TestCommitDiff(t *testing.T) {
	dir := newRepo(t)
	r := &Runner{Dir: dir}
	ref := "HEAD"
	root := r.Execute(context.Background(), &Request{Action: ActionGitCommitDiff, Command: contract.GitAgentCommandV1{Ref: ref}})
	if root.OutputType != contract.OutputError {
		t.Errorf("a root commit's diff: %+v", root)
	}
	writeFile(t, dir, "a.txt", "beta\n")
	git(t, dir, "commit", "-qam", "beta")
	res := r.Execute(context.Background(), &Request{Action: ActionGitCommitDiff, Command: contract.GitAgentCommandV1{Ref: ref}})
	if res.OutputType == contract.OutputError || !strings.Contains(res.Data, "diff --git a/a.txt b/a.txt") ||
		!strings.Contains(res.Data, "-alpha\n+beta\n") || strings.Contains(res.Data, "README") {
		t.Errorf("diff of HEAD: %+v", res)
	}
}
