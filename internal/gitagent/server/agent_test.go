package server

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
)

// execIn decodes doc and runs it with a Runner in dir.
func execIn(t *testing.T, dir, doc string) contract.ActionResult {
	t.Helper()
	req, rerr := Decode([]byte(doc))
	if rerr != nil {
		t.Fatalf("Decode: %v", rerr)
	}
	a := &Runner{Dir: dir}
	return a.Execute(context.Background(), req)
}

func wantSuccess(t *testing.T, res contract.ActionResult) {
	t.Helper()
	if res.OutputType != contract.OutputText {
		t.Fatalf("want success, got %s: %s (metadata %v)", res.OutputType, res.Data, res.Metadata)
	}
}

func wantFailure(t *testing.T, res contract.ActionResult, kind string, exitCode int) {
	t.Helper()
	if res.OutputType != contract.OutputError {
		t.Fatalf("want an error result, got success: %q", res.Data)
	}
	if res.Metadata["error_kind"] != kind {
		t.Errorf("error_kind %v, want %s (data %q)", res.Metadata["error_kind"], kind, res.Data)
	}
	code, has := res.Metadata["exit_code"]
	switch {
	case exitCode < 0 && has:
		t.Errorf("metadata.exit_code %v present, git did not fail", code)
	case exitCode >= 0 && code != exitCode:
		t.Errorf("metadata.exit_code %v, want %d", code, exitCode)
	}
}

// TestActions runs every action, in both payload shapes where the seed
// defines one, against a fresh real repository.
func TestActions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		action string
		// payload is the canonical command without "type"; the legacy shape
		// is the same object at the top level.
		payload string
		legacy  string
		setup   func(t *testing.T, repo string)
		check   func(t *testing.T, repo string, res contract.ActionResult)
	}{
		{
			name: "status clean", action: "git_status", payload: `{}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if !strings.Contains(res.Data, "nothing to commit, working tree clean") || res.Metadata != nil {
					t.Errorf("status %q metadata %v", res.Data, res.Metadata)
				}
			},
		},
		{
			name: "status dirty", action: "git_status", payload: `{}`,
			setup: func(t *testing.T, repo string) { writeFile(t, repo, "new.txt", "n\n") },
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if !strings.Contains(res.Data, "new.txt") {
					t.Errorf("status does not list new.txt: %q", res.Data)
				}
			},
		},
		{
			name: "diff all", action: "git_diff", payload: `{}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "beta\n")
				writeFile(t, repo, "README.md", "# changed\n")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if !strings.Contains(res.Data, "+beta") || !strings.Contains(res.Data, "+# changed") {
					t.Errorf("diff %q", res.Data)
				}
			},
		},
		{
			name: "diff one file", action: "git_diff", payload: `{"files":["a.txt"]}`, legacy: `{"files":["a.txt"]}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "beta\n")
				writeFile(t, repo, "README.md", "# changed\n")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if !strings.Contains(res.Data, "+beta") || strings.Contains(res.Data, "README") {
					t.Errorf("diff of a.txt only: %q", res.Data)
				}
			},
		},
		{
			name: "log limit", action: "git_log", payload: `{"limit":1}`, legacy: `{"limit":"1"}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "second\n")
				git(t, repo, "commit", "-q", "-am", "second commit")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if strings.Count(res.Data, "\ncommit ")+1 != 1 || !strings.Contains(res.Data, "second commit") {
					t.Errorf("log -n 1: %q", res.Data)
				}
			},
		},
		{
			name: "log default limit", action: "git_log", payload: `{}`,
			setup: func(t *testing.T, repo string) {
				for i := range 11 {
					git(t, repo, "commit", "-q", "--allow-empty", "-m", "empty "+string(rune('a'+i)))
				}
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if n := strings.Count(res.Data, "commit "); n != contract.DefaultGitLogLimit {
					t.Errorf("%d commits listed, want the default %d", n, contract.DefaultGitLogLimit)
				}
			},
		},
		{
			name: "add", action: "git_add", payload: `{"files":["a.txt","sub/new.txt"]}`, legacy: `{"files":["a.txt","sub/new.txt"]}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "beta\n")
				writeFile(t, repo, "sub/new.txt", "n\n")
				writeFile(t, repo, "untouched.txt", "u\n")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if got := staged(t, repo); !reflect.DeepEqual(got, []string{"a.txt", "sub/new.txt"}) {
					t.Errorf("staged %q", got)
				}
			},
		},
		{
			name: "add missing file", action: "git_add", payload: `{"files":["nope.txt"]}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantFailure(t, res, KindGitFailed, 128)
				if !strings.Contains(res.Data, "did not match any files") {
					t.Errorf("data %q", res.Data)
				}
			},
		},
		{
			name: "commit", action: "git_commit", payload: `{"message":"feat: add new planner"}`, legacy: `{"message":"feat: add new planner"}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "beta\n")
				git(t, repo, "add", "a.txt")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if msg := git(t, repo, "log", "-1", "--format=%s"); msg != "feat: add new planner\n" {
					t.Errorf("HEAD subject %q", msg)
				}
			},
		},
		{
			name: "commit message that looks like an option", action: "git_commit", payload: `{"message":"--amend"}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "beta\n")
				git(t, repo, "add", "a.txt")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if n := strings.TrimSpace(git(t, repo, "rev-list", "--count", "HEAD")); n != "2" {
					t.Errorf("%s commits, want 2 (a new commit, not an amend)", n)
				}
			},
		},
		{
			name: "commit nothing staged", action: "git_commit", payload: `{"message":"empty"}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantFailure(t, res, KindGitFailed, 1)
				if !strings.Contains(res.Data, "nothing to commit") {
					t.Errorf("data %q", res.Data)
				}
			},
		},
		{
			name: "branch create at start point", action: "git_branch", payload: `{"branch":"fix/one","create":true,"start_point":"HEAD"}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if b := git(t, repo, "branch", "--show-current"); b != "fix/one\n" {
					t.Errorf("current branch %q", b)
				}
			},
		},
		{
			name: "branch switch", action: "git_branch", payload: `{"branch":"other"}`,
			setup: func(t *testing.T, repo string) { git(t, repo, "branch", "other") },
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if b := git(t, repo, "branch", "--show-current"); b != "other\n" {
					t.Errorf("current branch %q", b)
				}
			},
		},
		{
			name: "branch switch missing", action: "git_branch", payload: `{"branch":"nope"}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) { wantFailure(t, res, KindGitFailed, 128) },
		},
		{
			name: "branch create existing", action: "git_branch", payload: `{"branch":"main","create":true}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) { wantFailure(t, res, KindGitFailed, 128) },
		},
		{
			name: "restore", action: "git_restore", payload: `{"files":["a.txt","added.txt"]}`,
			setup: func(t *testing.T, repo string) {
				writeFile(t, repo, "a.txt", "broken\n")
				git(t, repo, "add", "a.txt")
				writeFile(t, repo, "a.txt", "more broken\n")
				writeFile(t, repo, "added.txt", "new\n")
				git(t, repo, "add", "added.txt")
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if got := readFile(t, repo, "a.txt"); got != "alpha\n" {
					t.Errorf("a.txt = %q after restore", got)
				}
				if _, err := os.Stat(filepath.Join(repo, "added.txt")); !os.IsNotExist(err) {
					t.Errorf("added.txt not removed: %v", err)
				}
				if s := git(t, repo, "status", "--porcelain"); s != "" {
					t.Errorf("work tree not clean: %q", s)
				}
			},
		},
		{
			name: "push", action: "git_push", payload: `{"remote":"up","branch":"main"}`,
			setup: func(t *testing.T, repo string) {
				remote := filepath.Join(filepath.Dir(repo), "up.git")
				git(t, repo, "init", "-q", "--bare", remote)
				git(t, repo, "remote", "add", "up", remote)
			},
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				head := git(t, repo, "rev-parse", "HEAD")
				if got := git(t, filepath.Join(filepath.Dir(repo), "up.git"), "rev-parse", "main"); got != head {
					t.Errorf("remote main %q, want %q", got, head)
				}
				if !strings.Contains(res.Data, "refs/heads/main") {
					t.Errorf("porcelain output %q", res.Data)
				}
			},
		},
		{
			name: "push no remote", action: "git_push", payload: `{}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantFailure(t, res, KindGitFailed, 128)
				if !strings.Contains(res.Data, "origin") {
					t.Errorf("data %q", res.Data)
				}
			},
		},
		{
			name: "rev_parse HEAD", action: "git_rev_parse", payload: `{}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if res.Data != git(t, repo, "rev-parse", "HEAD") {
					t.Errorf("rev_parse %q", res.Data)
				}
			},
		},
		{
			name: "rev_parse branch", action: "git_rev_parse", payload: `{"ref":"branch"}`, legacy: `{"ref":"branch"}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) {
				wantSuccess(t, res)
				if res.Data != "main\n" {
					t.Errorf("branch %q", res.Data)
				}
			},
		},
		{
			name: "rev_parse unknown", action: "git_rev_parse", payload: `{"ref":"no-such-ref"}`,
			check: func(t *testing.T, repo string, res contract.ActionResult) { wantFailure(t, res, KindGitFailed, 128) },
		},
	} {
		shapes := map[string]string{ShapeCanonical: canonical(tc.action, tc.payload)}
		if tc.legacy != "" {
			shapes[ShapeLegacy] = tc.legacy
		}
		for shape, payload := range shapes {
			t.Run(tc.name+"/"+shape, func(t *testing.T) {
				t.Parallel()
				repo := newRepo(t)
				if tc.setup != nil {
					tc.setup(t, repo)
				}
				tc.check(t, repo, execIn(t, repo, request(tc.action, payload)))
			})
		}
	}
}

// canonical wraps fields (a JSON object) as {"command":{"type":…,…}}.
func canonical(action, fields string) string {
	inner := strings.TrimSpace(fields)
	inner = strings.TrimSuffix(strings.TrimPrefix(inner, "{"), "}")
	if inner != "" {
		inner = "," + inner
	}
	return `{"command":{"type":"` + action + `"` + inner + `}}`
}

// TestNotARepository runs each action where there is no repository: git's
// own error comes back with its exit code.
func TestNotARepository(t *testing.T) {
	dir := t.TempDir()
	for _, action := range Actions() {
		payload := map[string]string{
			"git_add": `{"files":["x"]}`, "git_restore": `{"files":["x"]}`, "git_diff": `{"files":["x"]}`,
			"git_commit": `{"message":"m"}`, "git_branch": `{"branch":"b"}`, ActionGitWorktree: `{"ref":"list"}`, ActionGitBranchPrune: `{"branch":"salve/heal-"}`, ActionGitShowFile: `{"files":[".salve.yml"]}`,
		}[action]
		if payload == "" {
			payload = "{}"
		}
		t.Run(action, func(t *testing.T) {
			res := execIn(t, dir, request(action, payload))
			wantFailure(t, res, KindGitFailed, 128)
			if !strings.Contains(res.Data, "not a git repository") {
				t.Errorf("data %q", res.Data)
			}
		})
	}
	t.Run("missing directory", func(t *testing.T) {
		res := execIn(t, filepath.Join(dir, "gone"), request("git_status", "{}"))
		wantFailure(t, res, KindGitFailed, 128)
	})
}

// TestOptionLikeFileNames stages and diffs files literally named like git
// options and pathspec magic: they must be treated as paths, and
// "--output=x" must not make git write a file x.
func TestOptionLikeFileNames(t *testing.T) {
	repo := newRepo(t)
	names := []string{"--output=x", "-rf", ":(exclude)a.txt", "*.txt"}
	for _, n := range names {
		writeFile(t, repo, n, "content of "+n+"\n")
	}
	git(t, repo, "add", "--", "--output=x", "-rf")
	git(t, repo, "commit", "-q", "-m", "option-like files")
	writeFile(t, repo, "--output=x", "changed\n")
	writeFile(t, repo, "-rf", "changed too\n")
	writeFile(t, repo, "a.txt", "also changed\n")

	res := execIn(t, repo, request("git_diff", `{"files":["--output=x"]}`))
	wantSuccess(t, res)
	if !strings.Contains(res.Data, "+changed") || strings.Contains(res.Data, "also changed") {
		t.Errorf("diff of --output=x: %q", res.Data)
	}
	if _, err := os.Stat(filepath.Join(repo, "x")); !os.IsNotExist(err) {
		t.Fatalf("git diff treated --output=x as an option and wrote x (%v)", err)
	}

	res = execIn(t, repo, request("git_add", `{"files":["--output=x","-rf",":(exclude)a.txt","*.txt"]}`))
	wantSuccess(t, res)
	if got := staged(t, repo); !reflect.DeepEqual(got, []string{"*.txt", "--output=x", "-rf", ":(exclude)a.txt"}) {
		t.Errorf("staged %q: want exactly the four literal names, and not a.txt", got)
	}

	res = execIn(t, repo, request("git_restore", `{"files":["-rf"]}`))
	wantSuccess(t, res)
	if got := readFile(t, repo, "-rf"); got != "content of -rf\n" {
		t.Errorf("-rf not restored: %q", got)
	}
	if got := readFile(t, repo, "a.txt"); got != "also changed\n" {
		t.Errorf("restore of -rf touched a.txt: %q", got)
	}
}

// TestPathEscapesRefused proves that every way out of the repository is
// refused before git runs, for each action that takes paths.
func TestPathEscapesRefused(t *testing.T) {
	repo := newRepo(t)
	outside := filepath.Join(filepath.Dir(repo), "outside")
	writeFile(t, outside, "secret.txt", "secret\n")
	mustSymlink(t, outside, filepath.Join(repo, "dirlink"))
	mustSymlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(repo, "filelink"))
	mustSymlink(t, "../outside/secret.txt", filepath.Join(repo, "rellink"))
	mustSymlink(t, "../../nowhere", filepath.Join(repo, "dangling"))
	for _, path := range []string{
		"../outside/secret.txt",
		"sub/../../outside/secret.txt",
		"..",
		filepath.Join(outside, "secret.txt"),
		"/etc/passwd",
		"dirlink/secret.txt",
		"filelink",
		"rellink",
		"dangling",
		".git/config",
		"",
	} {
		for _, action := range []string{"git_add", "git_diff", "git_restore"} {
			t.Run(action+"/"+path, func(t *testing.T) {
				doc := request(action, `{"files":["a.txt",`+quote(path)+`]}`)
				res := execIn(t, repo, doc)
				wantFailure(t, res, KindPathRefused, -1)
				if len(staged(t, repo)) != 0 {
					t.Error("something was staged")
				}
			})
		}
	}
}

func TestPathsInsideAccepted(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "sub/b.txt", "b\n")
	mustSymlink(t, "a.txt", filepath.Join(repo, "inlink"))
	writeFile(t, repo, "a.txt", "changed\n")
	sub := filepath.Join(repo, "sub")
	for _, tc := range []struct {
		name, dir, path string
		want            []string
	}{
		{"absolute inside", repo, filepath.Join(repo, "a.txt"), []string{"a.txt"}},
		{"dot dot staying inside", repo, "sub/../a.txt", []string{"a.txt"}},
		{"from a subdirectory", sub, "b.txt", []string{"sub/b.txt"}},
		{"up from a subdirectory", sub, "../a.txt", []string{"a.txt"}},
		{"link inside", repo, "inlink", []string{"inlink"}},
		{"the root", sub, "..", []string{"a.txt", "inlink", "sub/b.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			git(t, repo, "reset", "-q")
			res := execIn(t, tc.dir, request("git_add", `{"files":[`+quote(tc.path)+`]}`))
			wantSuccess(t, res)
			if got := staged(t, repo); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("staged %q, want %q", got, tc.want)
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string {
	b := strings.Builder{}
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestGitUnavailable(t *testing.T) {
	repo := newRepo(t)
	req, rerr := Decode([]byte(request("git_status", "{}")))
	if rerr != nil {
		t.Fatal(rerr)
	}
	a := &Runner{Dir: repo, Git: filepath.Join(t.TempDir(), "no-git")}
	wantFailure(t, a.Execute(context.Background(), req), KindGitUnavailable, -1)
}

func TestOutputTruncated(t *testing.T) {
	repo := newRepo(t)
	writeFile(t, repo, "a.txt", strings.Repeat("a long line of text\n", 2000))
	req, rerr := Decode([]byte(request("git_diff", "{}")))
	if rerr != nil {
		t.Fatal(rerr)
	}
	a := &Runner{Dir: repo, MaxOutput: 1000}
	res := a.Execute(context.Background(), req)
	wantSuccess(t, res)
	if res.Metadata["truncated"] != true || len(res.Data) > 1100 || !strings.Contains(res.Data, "bytes omitted") {
		t.Errorf("metadata %v, %d bytes of data", res.Metadata, len(res.Data))
	}
}

// TestGitTimeout hangs git in a clean filter of the repository's own
// configuration (hooks are off, filters are kept): the group is killed at
// the time limit and the result says timeout.
func TestGitTimeout(t *testing.T) {
	repo := newRepo(t)
	git(t, repo, "config", "filter.slow.clean", "sleep 30")
	writeFile(t, repo, ".gitattributes", "*.txt filter=slow\n")
	writeFile(t, repo, "a.txt", "beta\n")
	req, rerr := Decode([]byte(request("git_add", `{"files":["a.txt"]}`)))
	if rerr != nil {
		t.Fatal(rerr)
	}
	a := &Runner{Dir: repo, Timeout: 300 * time.Millisecond}
	wantFailure(t, a.Execute(context.Background(), req), KindTimeout, -1)
}

// TestPushURLCredentialsNotLogged pushes to a remote URL that carries a
// token: the git command is logged, but never with the token.
func TestPushURLCredentialsNotLogged(t *testing.T) {
	repo := newRepo(t)
	const secret = "s3cret-token"
	req, rerr := Decode([]byte(request("git_push", `{"remote":"https://user:`+secret+`@127.0.0.1:1/x.git","branch":"main"}`)))
	if rerr != nil {
		t.Fatal(rerr)
	}
	var logs bytes.Buffer
	a := &Runner{Dir: repo, Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	wantFailure(t, a.Execute(context.Background(), req), KindGitFailed, 128)
	if !strings.Contains(logs.String(), `"git command"`) || !strings.Contains(logs.String(), "https://[REDACTED]@127.0.0.1:1/x.git") {
		t.Errorf("push not logged with a redacted URL:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the token reached the log:\n%s", logs.String())
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@host/r.git":        "https://[REDACTED]@host/r.git",
		"https://tok@host:8443/a@b":     "https://[REDACTED]@host:8443/a@b",
		"ssh://git@host/r.git":          "ssh://[REDACTED]@host/r.git",
		"https://host/r.git":            "https://host/r.git",
		"git@host:r.git":                "git@host:r.git",
		"origin":                        "origin",
		"--end-of-options":              "--end-of-options",
		"https://a:b@c@host/?q=x@y#f@g": "https://[REDACTED]@host/?q=x@y#f@g",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
