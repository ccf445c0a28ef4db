package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/testbuf"
	"github.com/salve-dev/salve/internal/testdirs"
	"github.com/salve-dev/salve/internal/testrepo"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/internal/store"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// TestMain removes the binaries mcpBinaries built.
func TestMain(m *testing.M) {
	clean := testdirs.Isolate()
	code := m.Run()
	clean()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// mcpBinaries builds salve and git_agent once per test process and returns
// their paths.
func mcpBinaries(t testing.TB) (salve, gitAgent string) {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "salve-mcp-bin-"); binErr != nil {
			return
		}
		for _, name := range []string{"salve", "git_agent"} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, name), "github.com/salve-dev/salve/cmd/"+name)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build %s: %v\n%s", name, err, out)
				return
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "salve"), filepath.Join(binDir, "git_agent")
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: this end-to-end test needs it", tool)
		}
	}
}

// mcpEnv is the environment of a salve mcp server under test: its own
// state and store, the git agent, and a git identity.
func mcpEnv(t *testing.T, gitAgent string) []string {
	t.Helper()
	state := t.TempDir()
	// The builds share the test's Go caches: a cold cache per test would
	// rebuild the standard library.
	goEnv := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err == nil && strings.TrimSpace(string(out)) != "" {
			goEnv[k] = strings.TrimSpace(string(out))
		}
	}
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOCACHE", "GOMODCACHE", "GOPATH", "HOME", "XDG_STATE_HOME", "SALVE_STORE", "SALVE_GIT_AGENT", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "OPENROUTER_API_KEY":
			continue
		}
		env = append(env, kv)
	}
	for k, v := range goEnv {
		env = append(env, k+"="+v)
	}
	return append(env, "HOME="+filepath.Join(state, "home"), "XDG_STATE_HOME="+filepath.Join(state, "state"),
		"SALVE_STORE="+filepath.Join(state, "runs.db"), "SALVE_GIT_AGENT="+gitAgent,
		"GIT_AUTHOR_NAME=salve", "GIT_AUTHOR_EMAIL=salve@localhost", "GIT_COMMITTER_NAME=salve",
		"GIT_COMMITTER_EMAIL=salve@localhost", "GIT_CONFIG_NOSYSTEM=1")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repoState is what a heal must leave alone: HEAD, the index and work
// tree status, and the files.
func repoState(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(git(t, repo, "rev-parse", "HEAD", "main"))
	b.WriteString(git(t, repo, "status", "--porcelain=v2", "--branch"))
	for _, f := range []string{"main.go", "sum.go", "main_test.go"} {
		data, _ := os.ReadFile(filepath.Join(repo, f))
		b.Write(data)
	}
	return b.String()
}

// goBuildLogOf runs go build in repo and returns its log.
func goBuildLogOf(t *testing.T, repo string) string {
	t.Helper()
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("go build of the broken repository passed:\n%s", out)
	}
	return string(out)
}

func TestMCPCommandBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0", "--listen-address", "0.0.0.0", "--no-store"}, "give --token"},
		{[]string{"mcp", "--http", "70000", "--no-store"}, "not a port"},
		{[]string{"mcp", "--allow-root", "/does/not/exist", "--no-store"}, "not a directory"},
		{[]string{"mcp", "--max-running", "0", "--no-store"}, "--max-running"},
		{[]string{"mcp", "extra"}, "unknown command"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitBadInput || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q (want %q), stdout %q", tc.args, code, stderr.String(), tc.want, stdout.String())
		}
	}
	// Stdio ends cleanly when the client's input ends, saying nothing.
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"mcp", "--no-store"}, strings.NewReader(""), &stdout, &stderr); code != exitOK || stdout.Len() != 0 {
		t.Errorf("empty stdin: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestMCPHealOverStdio drives the built salve mcp with the Go SDK client:
// a real heal of a broken Go repository, its record in the run store, and a
// cancelled heal that leaves nothing behind.
func TestMCPHealOverStdio(t *testing.T) {
	needTools(t, "go", "git", "sh", "gofmt", "touch", "sleep")
	salve, gitAgent := mcpBinaries(t)
	repo := testrepo.Example(t, "go-broken")
	before := repoState(t, repo)
	cmd := exec.Command(salve, "mcp", "--isolation", "none")
	cmd.Env = mcpEnv(t, gitAgent)
	var stderr testbuf.Buffer
	cmd.Stderr = &stderr
	c, progressed := progressClient()
	ctx := testContext(t)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{
		"workspace": repo, "cmd": "sh check.sh", "fixers": []string{"rules"}, "max_iterations": 3}})
	if err != nil {
		t.Fatalf("heal: %v\n%s", err, stderr.String())
	}
	if res.IsError {
		t.Fatalf("heal: %s\n%s", toolText(res), stderr.String())
	}
	var out results.Results
	decodeStructured(t, res, &out)
	if out.Outcome != results.OutcomeGreen || len(out.Commits) != 2 || out.Branch == "" {
		t.Fatalf("heal results: outcome %s, %d commits, branch %q: %s", out.Outcome, len(out.Commits), out.Branch, toolText(res))
	}
	if !strings.Contains(toolText(res), `IMPORT error in main.go line 6 → Fix: remove unused import "os"`) {
		t.Errorf("heal text %q", toolText(res))
	}
	if repoState(t, repo) != before {
		t.Error("the heal changed the user's checkout")
	}
	if log := git(t, repo, "log", "--format=%s", out.Branch); strings.Count(log, "salve heal: fix ") != 2 {
		t.Errorf("heal branch log:\n%s", log)
	}
	if list := git(t, repo, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktree left behind:\n%s", list)
	}
	var view store.RunView
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "runs_show", Arguments: map[string]any{"run": out.RunID}})
	if err != nil {
		t.Fatal(err)
	}
	decodeStructured(t, res, &view)
	if view.Run.Kind != store.KindHeal || view.Run.Status != results.OutcomeGreen {
		t.Errorf("recorded run %+v", view.Run)
	}

	// Bad input that only the heal itself can see.
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"workspace": t.TempDir(), "cmd": "true"}, "not a git repository"},
		{map[string]any{"workspace": repo, "cmd": "true", "branch": "bad..name"}, "bad..name"},
		{map[string]any{"workspace": repo, "cmd": "true", "branch": out.Branch}, "already exists"},
		{map[string]any{"workspace": repo, "fixers": []string{"llm"}}, "no model configured"},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "heal", Arguments: tc.args})
		if err != nil {
			t.Fatalf("heal %v: %v", tc.args, err)
		}
		if !res.IsError || !strings.Contains(toolText(res), tc.want) {
			t.Errorf("heal %v: error %v %q, want %q", tc.args, res.IsError, toolText(res), tc.want)
		}
	}
	if repoState(t, repo) != before {
		t.Error("a refused heal changed the user's checkout")
	}

	// A heal whose build hangs, cancelled by the client once the build
	// runs: the build says so by creating a marker file.
	for len(progressed) > 0 {
		<-progressed
	}
	hctx, hcancel := context.WithCancel(ctx)
	defer hcancel()
	errc := make(chan error, 1)
	marker := filepath.Join(t.TempDir(), "building")
	params := &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{"workspace": repo, "cmd": hangingBuild(marker), "fixers": []string{"rules"}}}
	params.SetProgressToken("hang")
	go func() { _, err := cs.CallTool(hctx, params); errc <- err }()
	select {
	case <-progressed:
	case <-ctx.Done():
		t.Fatalf("no progress from the hanging heal\n%s", stderr.String())
	}
	waitUntil(t, ctx, "the hanging heal's build to start", func() bool { return fileExists(marker) })
	// The heal is recorded from its start: it is the one running heal.
	hung := newestHeal(t, ctx, cs)
	if hung.Status != store.StatusRunning {
		t.Fatalf("the hanging heal is not the newest run, recorded as running: %+v", hung)
	}
	hcancel()
	if err := <-errc; err == nil {
		t.Error("the cancelled heal returned no error")
	}
	// The server stops the heal, removes its worktree, then records the
	// run: the client's call returns before all that is done.
	waitUntil(t, ctx, "the cancelled heal to be recorded", func() bool {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "runs_show", Arguments: map[string]any{"run": hung.RunID}})
		if err != nil {
			t.Fatalf("runs_show after the cancel: %v", err)
		}
		var v store.RunView
		decodeStructured(t, res, &v)
		return v.Run.Status != store.StatusRunning
	})
	if list := git(t, repo, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("the cancelled heal left its worktree:\n%s\n%s", list, stderr.String())
	}
	if repoState(t, repo) != before {
		t.Error("the cancelled heal changed the user's checkout")
	}
	// The server is still serving, and recorded the cancelled heal as
	// interrupted.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "runs_list", Arguments: map[string]any{"kind": "heal"}})
	if err != nil {
		t.Fatalf("runs_list after the cancel: %v", err)
	}
	var list struct{ Runs []store.Run }
	decodeStructured(t, res, &list)
	// Every heal is recorded from its start, so the refused ones are in
	// the list too; the newest is the cancelled one.
	found := false
	for _, r := range list.Runs {
		found = found || r.RunID == out.RunID
	}
	if len(list.Runs) == 0 || list.Runs[0].RunID != hung.RunID || list.Runs[0].Status != results.OutcomeInterrupted || !found {
		for _, r := range list.Runs {
			t.Logf("run %s %s", r.RunID, r.Status)
		}
		t.Errorf("the cancelled heal %s is not the newest run, recorded as interrupted, or the first heal is missing", hung.RunID)
	}
}

// testContext returns a context that ends shortly before the test's own
// deadline (go test -timeout), so that a stuck wait fails the test with
// its logs instead of the binary panicking; without a deadline it ends
// when the test's cleanup runs.
//
// Unlike t.Context, it is still live in the cleanup functions registered
// after it, which run before it is cancelled.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-time.Until(d)/20))
	}
	t.Cleanup(cancel)
	return ctx
}

// waitUntil polls cond until it holds, and fails the test if ctx ends
// first. The poll interval only sets how soon a change is seen; ctx is the
// failure cap, never an expectation of how long the change takes.
func waitUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// hangingBuild is a build command that creates marker, then hangs.
func hangingBuild(marker string) string {
	return "touch '" + marker + "' && sleep 600"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// newestHeal returns the newest heal run the server lists.
func newestHeal(t *testing.T, ctx context.Context, cs *sdk.ClientSession) store.Run {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "runs_list", Arguments: map[string]any{"kind": "heal"}})
	if err != nil {
		t.Fatalf("runs_list: %v", err)
	}
	var list struct{ Runs []store.Run }
	decodeStructured(t, res, &list)
	if len(list.Runs) == 0 {
		t.Fatal("runs_list: no heal recorded")
	}
	return list.Runs[0]
}

func toolText(res *sdk.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func decodeStructured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", toolText(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// nodeMCPClient runs testdata/mcp/client.cjs with the MCP TypeScript SDK,
// or skips when node or the SDK is missing.
func nodeMCPClient(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found; install Node.js and run scripts/headend/setup.sh")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	modules := filepath.Join(root, ".deps", "headend", "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the MCP TypeScript SDK (@modelcontextprotocol/sdk) is not installed; run scripts/headend/setup.sh")
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "mcp", "client.cjs"))
	cmd := exec.CommandContext(testContext(t), node, append([]string{script}, args...)...)
	cmd.Env = append(env, "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client %v: %v\n%s", args, err, stderr.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("node output %q: %v\n%s", out, err, stderr.String())
	}
	return m
}

// TestMCPTypeScriptClient drives the built salve mcp with the official MCP
// TypeScript SDK client, over stdio and over streamable HTTP: it lists the
// tools, parses a real go build log, heals a broken Go repository and
// reads the run back.
func TestMCPTypeScriptClient(t *testing.T) {
	needTools(t, "go", "git", "sh", "gofmt")
	salve, gitAgent := mcpBinaries(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			repo := testrepo.Example(t, "go-broken")
			before := repoState(t, repo)
			logFile := filepath.Join(t.TempDir(), "build.log")
			if err := os.WriteFile(logFile, []byte(goBuildLogOf(t, repo)), 0o644); err != nil {
				t.Fatal(err)
			}
			env := mcpEnv(t, gitAgent)
			var out map[string]any
			if transport == "stdio" {
				out = nodeMCPClient(t, env, "stdio", salve, repo, logFile)
			} else {
				url, stop := startHTTPServer(t, salve, env)
				out = nodeMCPClient(t, env, "http", url, repo, logFile)
				stop()
			}
			checkTSClient(t, out)
			if repoState(t, repo) != before {
				t.Error("the heal changed the user's checkout")
			}
			if list := git(t, repo, "worktree", "list"); strings.Count(list, "\n") != 0 {
				t.Errorf("worktree left behind:\n%s", list)
			}
		})
	}
}

// startHTTPServer starts salve mcp --http 0 and returns its /mcp URL and a
// function that stops it with SIGTERM and checks it exits 0.
func startHTTPServer(t *testing.T, salve string, env []string) (string, func()) {
	t.Helper()
	cmd := exec.Command(salve, "mcp", "--http", "0", "--isolation", "none")
	cmd.Env = env
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logs testbuf.Buffer
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`serving streamable HTTP at (http://\S+/mcp)`)
		for sc.Scan() {
			fmt.Fprintln(&logs, sc.Text())
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
	}()
	ctx := testContext(t)
	var url string
	select {
	case url = <-urlc:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatalf("salve mcp --http did not say where it listens:\n%s", logs.String())
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("salve mcp --http exited with %v:\n%s", err, logs.String())
			}
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			t.Errorf("salve mcp --http did not stop on SIGINT:\n%s", logs.String())
		}
		pw.Close()
	}
	t.Cleanup(stop)
	return url, stop
}

func checkTSClient(t *testing.T, out map[string]any) {
	t.Helper()
	got := jsonString(out["tools"])
	for _, want := range []string{
		`{"hasOutputSchema":true,"name":"exec","required":["workspace"]}`,
		`{"hasOutputSchema":true,"name":"heal","required":["workspace"]}`,
		`{"hasOutputSchema":true,"name":"parse","required":["log"]}`,
		`{"hasOutputSchema":true,"name":"runs_list","required":[]}`,
		`{"hasOutputSchema":true,"name":"runs_show","required":["run"]}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tools %s lack %s", got, want)
		}
	}
	parse := jsonString(out["parse"])
	for _, want := range []string{`"isError":false`, `"count":2`, `"file_path":"main.go"`, `"line_number":6`, `"line_number":11`, `"error_type":"TYPE_ERROR"`, `main.go:11:21: TYPE_ERROR undefined: strings`} {
		if !strings.Contains(parse, want) {
			t.Errorf("parse %s lacks %s", parse, want)
		}
	}
	if s := jsonString(out["badParse"]); !strings.Contains(s, `"isError":true`) || !strings.Contains(s, "log") {
		t.Errorf("bad parse %s", s)
	}
	if s := jsonString(out["badHeal"]); !strings.Contains(s, `"isError":true`) || !strings.Contains(s, "does not exist") {
		t.Errorf("bad heal %s", s)
	}
	h := jsonString(out["heal"])
	for _, want := range []string{`"isError":false`, `"outcome":"green"`, `"status":"fixed"`, `heal green after`} {
		if !strings.Contains(h, want) {
			t.Errorf("heal %s lacks %s", h, want)
		}
	}
	if p, _ := out["progress"].([]any); len(p) == 0 {
		t.Error("the heal sent no progress notifications")
	}
	if s := jsonString(out["runsShow"]); !strings.Contains(s, `"isError":false`) || !strings.Contains(s, `"kind":"heal"`) {
		t.Errorf("runs_show %s", s)
	}
	if s := jsonString(out["unknownRun"]); !strings.Contains(s, `"isError":true`) || !strings.Contains(s, `no run \"no-such-run\"`) {
		t.Errorf("unknown run %s", s)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMCPHTTPSignalDuringHeal stops salve mcp --http with SIGINT while a
// heal's build hangs: the server cancels the heal, removes its worktree and
// exits 0.
func TestMCPHTTPSignalDuringHeal(t *testing.T) {
	needTools(t, "go", "git", "sh", "touch", "sleep")
	salve, gitAgent := mcpBinaries(t)
	repo := testrepo.Example(t, "go-broken")
	before := repoState(t, repo)
	url, stop := startHTTPServer(t, salve, mcpEnv(t, gitAgent))
	marker := filepath.Join(t.TempDir(), "building")
	c, progressed := progressClient()
	ctx := testContext(t)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{"workspace": repo, "cmd": hangingBuild(marker), "fixers": []string{"rules"}}}
	params.SetProgressToken("sig")
	errc := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(ctx, params)
		if err == nil && !res.IsError {
			err = fmt.Errorf("the interrupted heal succeeded: %s", toolText(res))
		} else {
			err = nil
		}
		errc <- err
	}()
	select {
	case <-progressed:
	case <-ctx.Done():
		t.Fatal("no progress from the heal")
	}
	waitUntil(t, ctx, "the heal's build to start", func() bool { return fileExists(marker) })
	stop() // SIGINT; checks the exit status
	if list := git(t, repo, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("the interrupted heal left its worktree:\n%s", list)
	}
	if repoState(t, repo) != before {
		t.Error("the interrupted heal changed the user's checkout")
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Error(err)
		}
	case <-ctx.Done():
		t.Error("the client's call never returned after the server stopped")
	}
}

// progressClient is an MCP client whose progress messages arrive on
// progressed (64 may wait; more are dropped).
func progressClient() (c *sdk.Client, progressed chan string) {
	progressed = make(chan string, 64)
	c = sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			select {
			case progressed <- r.Params.Message:
			default:
			}
		}})
	return c, progressed
}
