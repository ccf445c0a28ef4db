package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/salve-dev/salve/internal/buildinfo"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/registry"
	"github.com/salve-dev/salve/internal/sandbox"
)

// agentBin is the git_agent binary built once by TestMain.
var agentBin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "git_agent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	agentBin = filepath.Join(tmp, "git_agent")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "go", Args: []string{"build", "-o", agentBin, "."}, Env: os.Environ(), Combined: true,
	})
	if err != nil || res.ExitCode != 0 {
		fmt.Fprintf(os.Stderr, "build git_agent: %v %s\n", err, res.Stdout)
		return 1
	}
	// Only the config written into each test repository applies.
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CEILING_DIRECTORIES": tmp,
		"XDG_DATA_HOME": filepath.Join(tmp, "data"),
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", registry.EnvDB} {
		os.Unsetenv(k)
	}
	return m.Run()
}

// agentRun is one run of the built binary.
type agentRun struct {
	code   int
	stdout []byte
	stderr []byte
	resp   *gitagent.Response
}

// runAgent runs the binary in dir with args and stdin, and parses and
// validates the response when the exit status is 0.
func runAgent(tb testing.TB, dir string, env []string, stdin io.Reader, args ...string) agentRun {
	tb.Helper()
	if env == nil {
		env = gitagent.ClientEnv()
	}
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: agentBin, Args: args, Dir: dir, Env: env, Stdin: stdin, MaxOutput: 64 << 20,
	})
	if err != nil {
		tb.Fatalf("run git_agent: %v", err)
	}
	r := agentRun{code: res.ExitCode, stdout: res.Stdout, stderr: res.Stderr}
	if r.code != 0 {
		return r
	}
	if n := bytes.Count(r.stdout, []byte("\n")); n != 1 {
		tb.Fatalf("stdout has %d lines, want one response: %q", n, r.stdout)
	}
	if r.resp, err = gitagent.ParseResponse(r.stdout); err != nil {
		tb.Fatalf("stdout is not a valid ActionResponse: %v\n%s", err, r.stdout)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(r.stderr), []byte("\n")) {
		if len(line) > 0 && !json.Valid(line) {
			tb.Errorf("stderr line is not a JSON log record: %q", line)
		}
	}
	return r
}

// newRepo makes a repository with one commit, configured for its tests.
func newRepo(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", dir},
		{"-C", dir, "config", "user.name", "Salve Test"},
		{"-C", dir, "config", "user.email", "test@salve.invalid"},
		{"-C", dir, "config", "commit.gpgsign", "false"},
	} {
		git(tb, args...)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	git(tb, "-C", dir, "add", "a.txt")
	git(tb, "-C", dir, "commit", "-q", "-m", "initial commit")
	return dir
}

func git(tb testing.TB, args ...string) string {
	tb.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "git", Args: args, Env: server.GitEnv()})
	if err != nil || res.ExitCode != 0 {
		tb.Fatalf("git %v: %v %s", args, err, res.Stderr)
	}
	return string(res.Stdout)
}

const rid = "f5e93cc3-5d6f-4e9e-88a2-2f10e1bf7a21"

func request(action, payload string) string {
	return fmt.Sprintf(`{"request_id":%q,"api_version":null,"tool":"git_agent","action":%q,"context":"",`+
		`"plan_id":"7a476b46-3b58-4b09-9afb-1b4c7d9642ce","task_id":"aa0a3c3d-1b01-4df7-a96e-4081e2a0d765",`+
		`"correlation_id":"8408fdd8-327a-4c26-9c79-8a8d51d8ab0e","payload":%s}`, rid, action, payload)
}

// TestBinaryActions drives the seed's five actions through the binary in
// both payload shapes.
func TestBinaryActions(t *testing.T) {
	repo := newRepo(t)
	reg := filepath.Join(t.TempDir(), "registry.db")
	steps := []struct {
		name, action, payload string
		prepare               func()
		want                  string
	}{
		{"status canonical", "git_status", `{"command":{"type":"git_status"}}`, nil, "nothing to commit"},
		{"status legacy", "git_status", `{}`, func() { writeFile(t, repo, "b.txt", "b\n") }, "b.txt"},
		{"diff legacy", "git_diff", `{"files":["a.txt"]}`, func() { writeFile(t, repo, "a.txt", "beta\n") }, "+beta"},
		{"diff canonical", "git_diff", `{"command":{"type":"git_diff","files":["a.txt"]}}`, nil, "+beta"},
		{"add legacy", "git_add", `{"files":["a.txt"]}`, nil, ""},
		{"add canonical", "git_add", `{"command":{"type":"git_add","files":["b.txt"]}}`, nil, ""},
		{"commit legacy", "git_commit", `{"message":"feat: add new planner"}`, nil, "feat: add new planner"},
		{"log legacy string", "git_log", `{"limit":"1"}`, nil, "feat: add new planner"},
		{"log legacy number", "git_log", `{"limit":2}`, nil, "initial commit"},
		{"log canonical", "git_log", `{"command":{"type":"git_log","limit":20}}`, nil, "initial commit"},
		{"commit canonical", "git_commit", `{"command":{"type":"git_commit","message":"second"}}`,
			func() { writeFile(t, repo, "c.txt", "c\n"); git(t, "-C", repo, "add", "c.txt") }, "second"},
	}
	for _, st := range steps {
		if st.prepare != nil {
			st.prepare()
		}
		r := runAgent(t, "", nil, strings.NewReader(request(st.action, st.payload)), "-C", repo, "--registry-db", reg)
		if r.code != 0 || r.resp.Status != contract.StatusSuccess {
			t.Fatalf("%s: exit %d, response %s\nstderr %s", st.name, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.resp.Result.Data, st.want) {
			t.Errorf("%s: data %q lacks %q", st.name, r.resp.Result.Data, st.want)
		}
		if r.resp.RequestID != rid || *r.resp.CorrelationID != "8408fdd8-327a-4c26-9c79-8a8d51d8ab0e" {
			t.Errorf("%s: trace not echoed: %s", st.name, r.stdout)
		}
	}
	if n := strings.TrimSpace(git(t, "-C", repo, "rev-list", "--count", "HEAD")); n != "3" {
		t.Errorf("%s commits, want 3", n)
	}
}

func writeFile(tb testing.TB, dir, name, body string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestBinaryBadInput feeds the binary every kind of bad input: each gets
// exit status 0 and one valid error response echoing what it could.
func TestBinaryBadInput(t *testing.T) {
	repo := newRepo(t)
	notRepo := t.TempDir()
	big := `{"request_id":"` + rid + `","tool":"git_agent","action":"git_status","payload":{"pad":"` +
		strings.Repeat("x", server.MaxRequestBytes) + `"}}`
	for _, tc := range []struct {
		name, dir, in, kind, echo string
		args                      []string
	}{
		{name: "empty stdin", in: "", kind: server.KindInvalidRequest},
		{name: "invalid JSON", in: `{"request_id":"` + rid + `",`, kind: server.KindInvalidRequest, echo: rid},
		{name: "two documents", in: request("git_status", "{}") + request("git_status", "{}"), kind: server.KindInvalidRequest, echo: rid},
		{name: "unknown action", in: request("git_gc", "{}"), kind: server.KindUnsupportedAction, echo: rid},
		{name: "wrong tool", in: strings.Replace(request("git_status", "{}"), `"git_agent"`, `"aider"`, 1), kind: server.KindWrongTool, echo: rid},
		{name: "wrong field type", in: request("git_add", `{"files":"a.txt"}`), kind: server.KindInvalidRequest, echo: rid},
		{name: "limit not a number", in: request("git_log", `{"limit":"ten"}`), kind: server.KindInvalidRequest, echo: rid},
		{name: "add without files", in: request("git_add", `{"files":[]}`), kind: server.KindInvalidRequest, echo: rid},
		{name: "commit without message", in: request("git_commit", `{}`), kind: server.KindInvalidRequest, echo: rid},
		{name: "over 16 MiB", in: big, kind: server.KindInvalidRequest, echo: rid},
		{name: "not a repository", dir: notRepo, in: request("git_status", "{}"), kind: server.KindGitFailed, echo: rid},
		{name: "path escape", in: request("git_add", `{"files":["../../etc/passwd"]}`), kind: server.KindPathRefused, echo: rid},
		{name: "bad flag", in: request("git_status", "{}"), kind: server.KindInvalidInvocation, echo: rid, args: []string{"--frobnicate"}},
		{name: "stray argument", in: request("git_status", "{}"), kind: server.KindInvalidInvocation, echo: rid, args: []string{"status"}},
		{name: "negative timeout", in: request("git_status", "{}"), kind: server.KindInvalidInvocation, echo: rid, args: []string{"--timeout", "-5s"}},
		{name: "zero timeout", in: request("git_status", "{}"), kind: server.KindInvalidInvocation, echo: rid, args: []string{"--timeout", "0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = repo
			}
			args := append([]string{"-C", dir, "--no-register"}, tc.args...)
			r := runAgent(t, "", nil, strings.NewReader(tc.in), args...)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr %s", r.code, r.stderr)
			}
			res := r.resp.Result
			if r.resp.Status != contract.StatusError || r.resp.Code != 1 || res.OutputType != contract.OutputError {
				t.Errorf("not an error response: %s", r.stdout)
			}
			if res.Metadata["error_kind"] != tc.kind || r.resp.RequestID != tc.echo {
				t.Errorf("kind %v request_id %q, want %s %q: %s", res.Metadata["error_kind"], r.resp.RequestID, tc.kind, tc.echo, r.stdout)
			}
		})
	}
}

// TestNotARepositoryMatchesSeed compares the not-a-repository response with
// the seed's example (§3.2), field by field.
func TestNotARepositoryMatchesSeed(t *testing.T) {
	r := runAgent(t, t.TempDir(), nil, strings.NewReader(request("git_status", "{}")), "--no-register")
	want := `{"request_id":"` + rid + `","api_version":null,"status":"error","code":1,"result":{"output_type":"error",` +
		`"data":"fatal: not a git repository (or any of the parent directories): .git\n","metadata":{"error_kind":"git_failed","exit_code":128}},` +
		`"error":null,"plan_id":"7a476b46-3b58-4b09-9afb-1b4c7d9642ce","task_id":"aa0a3c3d-1b01-4df7-a96e-4081e2a0d765",` +
		`"correlation_id":"8408fdd8-327a-4c26-9c79-8a8d51d8ab0e"}`
	var got, exp any
	if err := json.Unmarshal(r.stdout, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		t.Errorf("response\n got %s\nwant %s", r.stdout, want)
	}
}

// TestConcurrentRegistration starts 50 agents at once on one fresh registry
// file: every one must answer, register, and never see "database is locked".
func TestConcurrentRegistration(t *testing.T) {
	repo := newRepo(t)
	reg := filepath.Join(t.TempDir(), "registry.db")
	const n = 50
	runs := make([]agentRun, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			runs[i] = runAgent(t, "", nil, strings.NewReader(request("git_status", "{}")), "-C", repo, "--registry-db", reg)
		}()
	}
	close(start)
	wg.Wait()
	for i, r := range runs {
		if r.code != 0 || r.resp == nil || r.resp.Status != contract.StatusSuccess {
			t.Errorf("agent %d: exit %d, response %s", i, r.code, r.stdout)
			continue
		}
		if bytes.Contains(r.stderr, []byte("database is locked")) || !bytes.Contains(r.stderr, []byte("registered in tool registry")) {
			t.Errorf("agent %d did not register cleanly:\n%s", i, r.stderr)
		}
	}
	row := registryRow(t, reg)
	if row.RegistrationCount != n {
		t.Errorf("registration_count %d, want %d", row.RegistrationCount, n)
	}
	if row.ExecutablePath != agentBin || row.Version == "" {
		t.Errorf("row %+v", row)
	}
}

func registryRow(t *testing.T, path string) registry.Tool {
	t.Helper()
	db, err := registry.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	row, err := db.Get(context.Background(), contract.ToolGitAgent)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// TestRegistryLocation checks each way of naming the registry file,
// including the seed's ../../data/memory.db relative layout.
func TestRegistryLocation(t *testing.T) {
	repo := newRepo(t)
	root := t.TempDir()
	work := filepath.Join(root, "agents", "git_agent")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	xdg := filepath.Join(root, "xdg")
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"seed layout via flag", []string{"--registry-db", "../../data/memory.db"}, nil, filepath.Join(root, "data", "memory.db")},
		{"seed layout via env", nil, map[string]string{registry.EnvDB: "../../data/env.db"}, filepath.Join(root, "data", "env.db")},
		{"flag beats env", []string{"--registry-db", "flag.db"}, map[string]string{registry.EnvDB: "../../data/no.db"}, filepath.Join(work, "flag.db")},
		{"per-user default", nil, map[string]string{"XDG_DATA_HOME": xdg}, filepath.Join(xdg, "salve", "registry.db")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sandbox.MergeEnv(gitagent.ClientEnv(), tc.env)
			args := append([]string{"-C", repo}, tc.args...)
			r := runAgent(t, work, env, strings.NewReader(request("git_status", "{}")), args...)
			if r.code != 0 || r.resp.Status != contract.StatusSuccess {
				t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
			if row := registryRow(t, tc.want); row.RegistrationCount < 1 {
				t.Errorf("no registration in %s", tc.want)
			}
		})
	}
}

// TestRegistryFailureNotFatal points the registry at a directory: the git
// action still succeeds and the failure is a warning on stderr.
func TestRegistryFailureNotFatal(t *testing.T) {
	repo := newRepo(t)
	r := runAgent(t, "", nil, strings.NewReader(request("git_status", "{}")), "-C", repo, "--registry-db", t.TempDir())
	if r.code != 0 || r.resp.Status != contract.StatusSuccess {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
	if !bytes.Contains(r.stderr, []byte(`"level":"WARN","msg":"registry registration failed"`)) {
		t.Errorf("no warning on stderr:\n%s", r.stderr)
	}
}

func TestRunInProcess(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		args     []string
		stdout   io.Writer
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"version", []string{"--version"}, &bytes.Buffer{}, exitOK, "git_agent " + buildinfo.Version(version) + "\n", ""},
		{"stdout closed", []string{"--no-register"}, failWriter{}, exitNoResponse, "", "write response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := run(ctx, tc.args, strings.NewReader(""), tc.stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.wantCode, stderr.String())
			}
			if b, ok := tc.stdout.(*bytes.Buffer); ok && b.String() != tc.wantOut {
				t.Errorf("stdout %q, want %q", b.String(), tc.wantOut)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tc.wantErr)
			}
		})
	}
}

// TestHelp checks that -h and --help print the usage, with the exit
// statuses, on stdout and exit 0.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{arg}, strings.NewReader(""), &stdout, &stderr)
		if code != exitOK || !strings.HasPrefix(stdout.String(), "Usage: git_agent") || !strings.Contains(stdout.String(), "Exit status: 0") || stderr.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
