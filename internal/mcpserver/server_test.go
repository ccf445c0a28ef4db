package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/store"
)

// failAfter caps every wait on an event: it is reached only when the
// event never comes, so it is long enough for the busiest machine.
const failAfter = 2 * time.Minute

// connect serves s over in-memory transports and returns a connected
// client session; the server is stopped when the test ends.
func connect(t *testing.T, s *Server, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.ServeTransport(context.Background(), st) }()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(failAfter):
			t.Error("the server did not stop after the client closed")
		}
	})
	return cs
}

// call calls a tool with raw JSON arguments.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes the structured content into v.
func structured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// wantError checks that res is a tool error whose text holds want.
func wantError(t *testing.T, res *sdk.CallToolResult, want string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error with %q, got success: %s", want, text(res))
	}
	if !strings.Contains(text(res), want) {
		t.Errorf("error %q does not say %q", text(res), want)
	}
}

func newStorePath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "runs.db")
}

// goBuildLog is what go build printed for a program with an unused import
// and a missing one.
const goBuildLog = `# example.com/greet
./main.go:6:2: "os" imported and not used
./main.go:11:26: undefined: strings
`

func TestToolsHaveSchemas(t *testing.T) {
	cs := connect(t, New(Options{}), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string][]string{"parse": {"log"}, "heal": {"workspace"}, "exec": {"workspace"}, "runs_list": nil, "runs_show": {"run"}}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		var is, os struct {
			Type       string                     `json:"type"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(in, &is); err != nil || is.Type != "object" {
			t.Errorf("%s: input schema %s", tool.Name, in)
		}
		if err := json.Unmarshal(out, &os); err != nil || os.Type != "object" || len(os.Properties) == 0 {
			t.Errorf("%s: output schema %s", tool.Name, out)
		}
		if !slices.Equal(is.Required, required[tool.Name]) {
			t.Errorf("%s: required %v, want %v", tool.Name, is.Required, required[tool.Name])
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"exec", "heal", "parse", "runs_list", "runs_show"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestParse(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "cmd", "greet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "cmd", "greet", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "cmd", "greet", "main.go")
	cs := connect(t, New(Options{}), nil)

	var out ParseOutput
	res := call(t, cs, "parse", map[string]any{"log": goBuildLog})
	structured(t, res, &out)
	if out.Count != 2 || len(out.Reports) != 2 {
		t.Fatalf("reports %+v", out)
	}
	if r := out.Reports[1]; r.FilePath != "main.go" || r.LineNumber != 11 || r.ErrorType != contract.ErrorType("TYPE_ERROR") || r.Message != "undefined: strings" {
		t.Errorf("report %+v", r)
	}
	if !strings.Contains(text(res), "main.go:11:26: TYPE_ERROR undefined: strings") {
		t.Errorf("text %q", text(res))
	}

	// With the workspace, the log's path is matched by suffix.
	structured(t, call(t, cs, "parse", map[string]any{"log": goBuildLog, "workspace": ws}), &out)
	if len(out.Reports) != 2 || out.Reports[0].FilePath != "cmd/greet/main.go" {
		t.Errorf("with workspace: %+v", out.Reports)
	}
	// A clean log has no reports, as an empty array.
	res = call(t, cs, "parse", map[string]any{"log": "ok  \texample.com/greet\t0.01s\n"})
	structured(t, res, &out)
	if out.Count != 0 || out.Reports == nil {
		t.Errorf("clean log: %+v", out)
	}
	if raw, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(raw), `"reports":[]`) {
		t.Errorf("clean log structured content %s", raw)
	}

	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"no arguments", map[string]any{}, "log"},
		{"log not a string", map[string]any{"log": 42}, `want "string"`},
		{"log an array", map[string]any{"log": []string{"a"}}, "log"},
		{"unknown argument", map[string]any{"log": "x", "path": "/etc"}, "path"},
		{"workspace missing", map[string]any{"log": goBuildLog, "workspace": filepath.Join(ws, "nope")}, "does not exist"},
		{"workspace a file", map[string]any{"log": goBuildLog, "workspace": file}, "not a directory"},
		{"workspace not a string", map[string]any{"log": goBuildLog, "workspace": true}, "workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantError(t, call(t, cs, "parse", tc.args), tc.want) })
	}
}

func TestAllowedRoots(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "repo")
	outside := t.TempDir()
	link := filepath.Join(root, "escape")
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	healed := false
	cs := connect(t, New(Options{AllowedRoots: []string{root}, Heal: func(_ context.Context, in HealInput, _ heal.Progress) (*results.Results, error) {
		healed = true
		return greenResults(in), nil
	}}), nil)
	if res := call(t, cs, "parse", map[string]any{"log": goBuildLog, "workspace": inside}); res.IsError {
		t.Errorf("inside: %s", text(res))
	}
	wantError(t, call(t, cs, "parse", map[string]any{"log": goBuildLog, "workspace": outside}), "outside the directories")
	wantError(t, call(t, cs, "parse", map[string]any{"log": goBuildLog, "workspace": link}), "outside the directories")
	wantError(t, call(t, cs, "exec", map[string]any{"workspace": outside, "isolation": "none", "cmd": "true"}), "outside the directories")
	wantError(t, call(t, cs, "heal", map[string]any{"workspace": root + "/../" + filepath.Base(outside)}), "outside the directories")
	if healed {
		t.Error("a heal outside the allowed roots ran")
	}
}

func TestExecAndRuns(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not installed")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	storePath := newStorePath(t)
	cs := connect(t, New(Options{StorePath: storePath, Isolation: "none"}), nil)

	var out ExecOutput
	res := call(t, cs, "exec", map[string]any{"workspace": ws, "cmd": "echo building; echo broken >&2; exit 3", "timeout": 60})
	structured(t, res, &out)
	if out.ExitCode != 3 || !strings.Contains(out.BuildLog, "building") || !strings.Contains(out.BuildLog, "broken") {
		t.Errorf("exec output %+v", out)
	}
	if out.RunID == "" || out.EnvironmentMetadata.Isolation != "none" || out.EnvironmentMetadata.ResolvedCommand == "" {
		t.Errorf("exec metadata %+v, run %q", out.EnvironmentMetadata, out.RunID)
	}
	if !strings.Contains(text(res), "build failed (exit 3)") {
		t.Errorf("exec text %q", text(res))
	}
	var passed ExecOutput
	structured(t, call(t, cs, "exec", map[string]any{"workspace": ws, "cmd": "true"}), &passed)
	if passed.ExitCode != 0 {
		t.Errorf("passing build: %+v", passed)
	}

	var list RunsListOutput
	structured(t, call(t, cs, "runs_list", map[string]any{"kind": "exec"}), &list)
	if len(list.Runs) != 2 || list.Runs[0].RunID != passed.RunID || list.Runs[1].RunID != out.RunID {
		t.Fatalf("runs %+v, want %s then %s", list.Runs, passed.RunID, out.RunID)
	}
	structured(t, call(t, cs, "runs_list", map[string]any{"kind": "exec", "limit": 1}), &list)
	if len(list.Runs) != 1 {
		t.Errorf("limit 1: %d runs", len(list.Runs))
	}
	structured(t, call(t, cs, "runs_list", map[string]any{"kind": "heal"}), &list)
	if len(list.Runs) != 0 {
		t.Errorf("heal runs %+v", list.Runs)
	}

	var view store.RunView
	structured(t, call(t, cs, "runs_show", map[string]any{"run": out.RunID[:8]}), &view)
	if view.Run.RunID != out.RunID || view.Run.Kind != store.KindExec {
		t.Errorf("runs_show by prefix: %+v", view.Run)
	}
	structured(t, call(t, cs, "runs_show", map[string]any{"run": "latest"}), &view)
	if view.Run.RunID != passed.RunID {
		t.Errorf("runs_show latest: %s, want %s", view.Run.RunID, passed.RunID)
	}

	notDir := filepath.Join(ws, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{"exec", map[string]any{}, "workspace"},
		{"exec", map[string]any{"workspace": ""}, "workspace is required"},
		{"exec", map[string]any{"workspace": filepath.Join(ws, "gone")}, "does not exist"},
		{"exec", map[string]any{"workspace": notDir}, "not a directory"},
		{"exec", map[string]any{"workspace": ws, "isolation": "chroot"}, "isolation"},
		{"exec", map[string]any{"workspace": ws, "timeout": 0}, "timeout"},
		{"exec", map[string]any{"workspace": ws, "timeout": "10"}, "timeout"},
		{"runs_show", map[string]any{"run": "no-such-run"}, `no run "no-such-run"`},
		{"runs_show", map[string]any{"run": " "}, "run is required"},
		{"runs_show", map[string]any{}, "run"},
		{"runs_list", map[string]any{"limit": -1}, "limit"},
		{"runs_list", map[string]any{"kind": "lunch"}, "kind"},
	} {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) { wantError(t, call(t, cs, tc.tool, tc.args), tc.want) })
	}
}

func TestNoStore(t *testing.T) {
	cs := connect(t, New(Options{}), nil)
	wantError(t, call(t, cs, "runs_list", map[string]any{}), "no run store")
	wantError(t, call(t, cs, "runs_show", map[string]any{"run": "latest"}), "no run store")
}

// fakeHeal records the input of each call and answers with f.
type fakeHeal struct {
	mu  sync.Mutex
	ins []HealInput
	f   func(ctx context.Context, in HealInput, p heal.Progress) (*results.Results, error)
}

func (h *fakeHeal) run(ctx context.Context, in HealInput, p heal.Progress) (*results.Results, error) {
	h.mu.Lock()
	h.ins = append(h.ins, in)
	h.mu.Unlock()
	return h.f(ctx, in, p)
}

func greenResults(in HealInput) *results.Results {
	return &results.Results{
		RunID: "r1", Repo: in.Workspace, Branch: "salve/heal-r1", Outcome: results.OutcomeGreen, Reason: "the build passes", Iterations: 1,
		Commits: []results.Commit{{Hash: "abc", Message: "salve heal: fix main.go", Files: []string{"main.go"}, Iteration: 1}},
		Bugs:    []results.BugResult{{Bug: contract.BugReport{FilePath: "main.go", LineNumber: 6, ErrorType: "IMPORT", Message: "unused"}, Status: results.StatusFixed, Line: "IMPORT error in main.go line 6 → Fix: remove it", Iteration: 1}},
	}
}

func TestHealArgumentsAndResults(t *testing.T) {
	ws := t.TempDir()
	fh := &fakeHeal{f: func(_ context.Context, in HealInput, p heal.Progress) (*results.Results, error) {
		p.Stage(1, results.StageBuild, 0)
		p.Log("building", "iteration", 1)
		return greenResults(in), nil
	}}
	progress := make(chan string, 16)
	cs := connect(t, New(Options{Heal: fh.run, Isolation: "bwrap"}), &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			progress <- r.Params.Message
		}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	params := &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{
		"workspace": ws, "cmd": "go build ./...", "fixers": []string{"rules", "llm"}, "max_iterations": 3,
		"min_confidence": 0.9, "branch": "salve/fix-it", "timeout": 120, "models": []string{"openai/gpt-4o-mini"},
	}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	var out results.Results
	structured(t, res, &out)
	if out.Outcome != results.OutcomeGreen || out.Branch != "salve/heal-r1" || len(out.Commits) != 1 || out.Bugs[0].Status != results.StatusFixed {
		t.Errorf("results %+v", out)
	}
	if !strings.Contains(text(res), "heal green after 1 iteration(s)") || !strings.Contains(text(res), "IMPORT error in main.go line 6") {
		t.Errorf("text %q", text(res))
	}
	in := fh.ins[0]
	want := HealInput{Workspace: ws, Cmd: "go build ./...", Fixers: []string{"rules", "llm"}, MaxIterations: 3, MinConfidence: 0.9,
		Branch: "salve/fix-it", Timeout: 120, Isolation: "bwrap", Models: []string{"openai/gpt-4o-mini"}}
	if got, _ := json.Marshal(in); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("heal input\n got %s\nwant %s", got, must(json.Marshal(want)))
	}
	// Defaults: the server's isolation and the contract's timeout.
	call(t, cs, "heal", map[string]any{"workspace": ws})
	if in := fh.ins[1]; in.Isolation != "bwrap" || in.Timeout != contract.DefaultExecutorTimeoutSeconds {
		t.Errorf("defaults: %+v", in)
	}
	// The notifications may reach the client's handler after the result.
	var got []string
	for len(got) < 2 {
		select {
		case m := <-progress:
			got = append(got, m)
		case <-time.After(failAfter):
			t.Fatalf("progress notifications: %q", got)
		}
	}
	if all := strings.Join(got, "|"); !strings.Contains(all, "iteration 1: build") || !strings.Contains(all, "building iteration=1") {
		t.Errorf("progress %q", all)
	}

	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"no workspace", map[string]any{}, "workspace"},
		{"workspace missing", map[string]any{"workspace": filepath.Join(ws, "gone")}, "does not exist"},
		{"push refused", map[string]any{"workspace": ws, "push": true}, "--allow-push"},
		{"unknown fixer", map[string]any{"workspace": ws, "fixers": []string{"magic"}}, "fixers"},
		{"zero iterations", map[string]any{"workspace": ws, "max_iterations": 0}, "max_iterations"},
		{"confidence 0", map[string]any{"workspace": ws, "min_confidence": 0}, "min_confidence"},
		{"confidence 2", map[string]any{"workspace": ws, "min_confidence": 2}, "min_confidence"},
		{"bad isolation", map[string]any{"workspace": ws, "isolation": "vm"}, "isolation"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantError(t, call(t, cs, "heal", tc.args), tc.want) })
	}
	if len(fh.ins) != 2 {
		t.Errorf("bad calls reached the heal: %d calls", len(fh.ins))
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestHealErrorsAndPanics(t *testing.T) {
	ws := t.TempDir()
	var mode string
	fh := &fakeHeal{f: func(context.Context, HealInput, heal.Progress) (*results.Results, error) {
		switch mode {
		case "badwrapped":
			return nil, errorsJoin(heal.ErrBadInput, errors.New("not a git repository"))
		case "env":
			return nil, errorsJoin(heal.ErrEnvironment, errors.New("git_agent not found"))
		case "panic":
			panic("fixer exploded")
		}
		return nil, nil
	}}
	cs := connect(t, New(Options{Heal: fh.run}), nil)
	for _, tc := range []struct{ mode, want string }{
		{"badwrapped", "heal: bad input"},
		{"env", "something it needs is missing"},
		{"panic", "internal error: fixer exploded"},
		{"nil", "no results"},
	} {
		mode = tc.mode
		wantError(t, call(t, cs, "heal", map[string]any{"workspace": ws}), tc.want)
	}
	// The server survived the panic.
	mode = "nil"
	if res := call(t, cs, "parse", map[string]any{"log": goBuildLog}); res.IsError {
		t.Errorf("after the panic: %s", text(res))
	}
	wantError(t, call(t, New(Options{}).connectFor(t), "heal", map[string]any{"workspace": ws}), "not available")
}

func errorsJoin(a, b error) error { return errors.Join(a, b) }

func (s *Server) connectFor(t *testing.T) *sdk.ClientSession { return connect(t, s, nil) }

// TestHealCancellation checks that a client's cancellation reaches the
// heal, and that a stopping server cancels the heals still running and
// waits for them.
func TestHealCancellation(t *testing.T) {
	ws := t.TempDir()
	started := make(chan struct{}, 4)
	stopping := make(chan struct{}, 4)
	// Each cancelled heal cleans up until the test lets it end.
	finish := make(chan struct{}, 4)
	ended := make(chan error, 4)
	fh := &fakeHeal{f: func(ctx context.Context, _ HealInput, _ heal.Progress) (*results.Results, error) {
		started <- struct{}{}
		<-ctx.Done()
		stopping <- struct{}{}
		<-finish
		ended <- ctx.Err()
		return nil, ctx.Err()
	}}
	s := New(Options{Heal: fh.run, MaxRunning: 1})
	cs := connect(t, s, nil)

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{"workspace": ws}})
		errc <- err
	}()
	<-started
	cancel()
	select {
	case <-stopping:
	case <-time.After(failAfter):
		t.Fatal("the client's cancellation did not reach the heal")
	}
	finish <- struct{}{}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("heal ended with %v", err)
	}
	if err := <-errc; err == nil {
		t.Error("the cancelled call returned no error")
	}

	// A second call waits for a slot no more: the first released it.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		_, _ = cs.CallTool(ctx2, &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{"workspace": ws}})
	}()
	select {
	case <-started:
	case <-time.After(failAfter):
		t.Fatal("the second heal never started: the slot was not released")
	}
	// Stopping the server cancels it and waits for it to end: shutdown
	// cannot return while the heal is still cleaning up.
	down := make(chan struct{})
	go func() { s.shutdown(); close(down) }()
	select {
	case <-stopping:
	case <-time.After(failAfter):
		t.Fatal("shutdown did not cancel the running heal")
	}
	select {
	case <-down:
		t.Error("shutdown returned before the running heal ended")
	default:
	}
	finish <- struct{}{}
	select {
	case <-down:
	case <-time.After(failAfter):
		t.Fatal("shutdown did not return after the heal ended")
	}
	select {
	case <-ended:
	default:
		t.Error("shutdown returned before the running heal ended")
	}
}

func TestHTTP(t *testing.T) {
	s := New(Options{Token: "sekret"})
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.shutdown()

	resp, err := http.Get(hs.URL + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name, auth, origin string
		want               int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", "", http.StatusUnauthorized},
		{"cross-origin browser", "Bearer sekret", "https://evil.example", http.StatusForbidden},
		{"rebound host name", "Bearer sekret", "host", http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.origin == "host" {
			req.Host = "evil.example"
		} else if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}

	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer("sekret")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out ParseOutput
	structured(t, call(t, cs, "parse", map[string]any{"log": goBuildLog}), &out)
	if out.Count != 2 {
		t.Errorf("parse over HTTP: %+v", out)
	}
	wantError(t, call(t, cs, "parse", map[string]any{"log": 1}), "log")
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestRunsShowEveryPart fills a run with every kind of record (nil maps
// included) and reads it back through runs_show, so that the output schema
// is checked against each part.
func TestRunsShowEveryPart(t *testing.T) {
	ctx := context.Background()
	path := newStorePath(t)
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := st.CreateRun(ctx, store.Run{Kind: store.KindHeal, Title: "heal /repo → salve/heal-1"})
	if err != nil {
		t.Fatal(err)
	}
	child, err := st.CreateRun(ctx, store.Run{Kind: store.KindTool, ParentID: parent.RunID, Title: "aider"})
	if err != nil {
		t.Fatal(err)
	}
	req := contract.ToolRunRequestV1{ToolID: "aider", Cmd: []string{"aider", "--yes"}, Cwd: "/repo", TimeoutSeconds: 60}
	res := contract.ToolRunResultV1{ToolID: "aider", ExitCode: 1, Stdout: "out", Stderr: "err", StartedAt: contract.Timestamp(time.Now()), CompletedAt: contract.Timestamp(time.Now())}
	steps := []error{
		st.AddToolRun(ctx, child.RunID, "req-1", req, res),
		st.PutRunRecord(ctx, contract.RunRecordV1{RunID: child.RunID, RequestID: "req-1", ToolID: "aider", Status: contract.RunFailed, Request: req, Result: res,
			StartedAt: res.StartedAt, CompletedAt: res.CompletedAt}),
		st.AddStage(ctx, parent.RunID, "build", "ok", time.Now(), time.Second, map[string]any{"iteration": 1}),
		st.AddAccounting(ctx, parent.RunID, contract.AccountingEntry{Type: "llm", Status: "ok", Provider: "openai", Model: "gpt-4o-mini", Timestamp: 1}),
		st.FinishRun(ctx, parent.RunID, "green", map[string]any{"commits": 2}),
	}
	_, e1 := st.AddEvent(ctx, contract.LogEventV1{RunID: parent.RunID, Level: "INFO", Message: "fixed"})
	_, e2 := st.AddPatch(ctx, contract.PatchRecordV1{FilePath: "main.go", Operation: contract.PatchEdit, Diff: "--- a\n+++ b\n", ToolID: "aider", RequestID: "req-1", RunID: child.RunID, InScope: true})
	_, e3 := st.PutArtifact(ctx, parent.RunID, "results.json", []byte(`{"outcome":"green"}`))
	for _, err := range append(steps, e1, e2, e3) {
		if err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	cs := connect(t, New(Options{StorePath: path}), nil)
	var v store.RunView
	structured(t, call(t, cs, "runs_show", map[string]any{"run": parent.RunID}), &v)
	if v.Run.Status != "green" || len(v.Stages) != 1 || len(v.Events) != 1 || len(v.Artifacts) != 1 || len(v.Accounting) != 1 || len(v.Children) != 1 {
		t.Errorf("parent view %+v", v)
	}
	if raw, _ := json.Marshal(v.Run.Summary); !strings.Contains(string(raw), `"commits":2`) {
		t.Errorf("summary %s", raw)
	}
	structured(t, call(t, cs, "runs_show", map[string]any{"run": child.RunID}), &v)
	if len(v.ToolRuns) != 1 || len(v.Patches) != 1 || v.Record == nil || v.Record.Status != contract.RunFailed {
		t.Errorf("child view %+v", v)
	}
	var list RunsListOutput
	structured(t, call(t, cs, "runs_list", map[string]any{}), &list)
	if len(list.Runs) != 2 {
		t.Errorf("runs %+v", list.Runs)
	}
	structured(t, call(t, cs, "runs_list", map[string]any{"status": "green"}), &list)
	if len(list.Runs) != 1 || list.Runs[0].RunID != parent.RunID {
		t.Errorf("green runs %+v", list.Runs)
	}
}

// TestHealsOfOneRepositoryTakeTurns checks that two heals of one workspace
// never overlap, while heals of different workspaces run side by side.
func TestHealsOfOneRepositoryTakeTurns(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	calls := map[string]int{a: 3, b: 2}
	other := map[string]string{a: b, b: a}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	running := map[string]int{}
	ended := map[string]int{}
	most := map[string]int{}
	total, mostTotal := 0, 0
	gaveUp := false
	giveUp := time.AfterFunc(failAfter, func() { mu.Lock(); gaveUp = true; cond.Broadcast(); mu.Unlock() })
	defer giveUp.Stop()
	fh := &fakeHeal{f: func(_ context.Context, in HealInput, _ heal.Progress) (*results.Results, error) {
		w := in.Workspace
		mu.Lock()
		defer mu.Unlock()
		running[w]++
		total++
		most[w] = max(most[w], running[w])
		mostTotal = max(mostTotal, total)
		cond.Broadcast()
		// Hold the heal until one of the other workspace runs beside it,
		// or every heal of the other workspace is over: a server that
		// serialised all heals would keep it waiting until gaveUp.
		for running[other[w]] == 0 && ended[other[w]] < calls[other[w]] && !gaveUp {
			cond.Wait()
		}
		running[w]--
		total--
		ended[w]++
		cond.Broadcast()
		return greenResults(in), nil
	}}
	cs := connect(t, New(Options{Heal: fh.run, MaxRunning: 4}), nil)
	var wg sync.WaitGroup
	for _, ws := range []string{a, a, a, b, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "heal", Arguments: map[string]any{"workspace": ws}})
			if err != nil || res.IsError {
				t.Errorf("heal %s: %v %s", ws, err, text(res))
			}
		}()
	}
	wg.Wait()
	if most[a] != 1 || most[b] != 1 {
		t.Errorf("heals of one workspace overlapped: %v", most)
	}
	if mostTotal != 2 {
		t.Errorf("heals of different workspaces did not run side by side: at most %d at once", mostTotal)
	}
}
