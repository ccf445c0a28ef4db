package gitagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/registry"
	"github.com/salve-dev/salve/internal/sandbox"
)

// fakeAgentEnv names the fake git_agent the test binary plays when it is
// re-run as a helper process (the os/exec TestMain pattern).
const fakeAgentEnv = "GITAGENT_TEST_FAKE_AGENT"

// fakeAgents are the helper behaviours; each must be used by a test.
var fakeAgents = map[string]func() int{
	"hang":    func() int { time.Sleep(time.Hour); return 0 },
	"garbage": func() int { fmt.Println("this is not JSON"); return 0 },
	"exit3":   func() int { fmt.Fprintln(os.Stderr, "boom: agent crashed"); return 3 },
	"wrong-id": func() int {
		_, _ = io.ReadAll(os.Stdin)
		_ = server.WriteResponse(os.Stdout, server.Respond(server.Trace{RequestID: "someone-else"}, okResult))
		return 0
	},
	// git-config-env answers with the git configuration the agent would
	// give git from its environment (server.GitEnv), one entry a line.
	"git-config-env": func() int {
		var req struct {
			RequestID string `json:"request_id"`
		}
		_ = json.NewDecoder(os.Stdin).Decode(&req)
		var lines []string
		for _, kv := range server.GitEnv() {
			if strings.HasPrefix(kv, "GIT_CONFIG_") {
				lines = append(lines, kv)
			}
		}
		res := okResult
		res.Data = strings.Join(lines, "\n")
		_ = server.WriteResponse(os.Stdout, server.Respond(server.Trace{RequestID: req.RequestID}, res))
		return 0
	},
	"missing-fields": func() int { fmt.Println(`{"request_id":"x","status":"success","code":0}`); return 0 },
	"inconsistent": func() int {
		var req struct {
			RequestID string `json:"request_id"`
		}
		_ = json.NewDecoder(os.Stdin).Decode(&req)
		resp := server.Respond(server.Trace{RequestID: req.RequestID}, okResult)
		resp.Code = 1
		_ = server.WriteResponse(os.Stdout, resp)
		return 0
	},
}

var okResult = contract.ActionResult{OutputType: contract.OutputText}

// runHelper plays a fake agent when the environment asks for one.
func runHelper() (int, bool) {
	name := os.Getenv(fakeAgentEnv)
	if name == "" {
		return 0, false
	}
	f, ok := fakeAgents[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown fake agent %q\n", name)
		return 2, true
	}
	return f(), true
}

func newClient(t *testing.T, dir string) *Client {
	t.Helper()
	return &Client{
		Binary:     agentBin,
		Dir:        dir,
		Timeout:    time.Minute,
		RegistryDB: filepath.Join(t.TempDir(), "registry.db"),
		PlanID:     "plan-7", TaskID: "task-7", CorrelationID: "corr-7",
	}
}

// TestClientHealFlow drives the whole rollback-and-commit flow the heal
// pipeline needs through the real binary: branch, edit, diff, restore,
// edit again, add and commit, rev-parse, push.
func TestClientHealFlow(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	git(t, repo, "init", "-q", "--bare", remote)
	git(t, repo, "remote", "add", "origin", remote)
	c := newClient(t, repo)

	base, err := c.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CreateBranch(ctx, "salve/fix-1", "main"); err != nil {
		t.Fatal(err)
	}
	if b, err := c.CurrentBranch(ctx); err != nil || b != "salve/fix-1" {
		t.Fatalf("CurrentBranch = %q, %v", b, err)
	}

	writeFile(t, repo, "a.txt", "broken\n")
	diff, err := c.Diff(ctx, "a.txt")
	if err != nil || !strings.Contains(diff, "+broken") {
		t.Fatalf("Diff = %q, %v", diff, err)
	}
	if err := c.Restore(ctx, "a.txt"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, repo, "a.txt"); got != "alpha\n" {
		t.Fatalf("after Restore a.txt = %q", got)
	}

	writeFile(t, repo, "a.txt", "fixed\n")
	hash, err := c.AddCommit(ctx, "fix: a.txt\n\nmade by salve", "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(git(t, repo, "rev-parse", "HEAD")); hash != want || hash == base {
		t.Fatalf("AddCommit = %q, HEAD %q, base %q", hash, want, base)
	}
	if msg := git(t, repo, "log", "-1", "--format=%B"); msg != "fix: a.txt\n\nmade by salve\n\n" {
		t.Errorf("commit message %q", msg)
	}
	if err := c.Push(ctx, "", "salve/fix-1"); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(git(t, remote, "rev-parse", "refs/heads/salve/fix-1")); got != hash {
		t.Errorf("remote branch at %q, want %q", got, hash)
	}
	if err := c.SwitchBranch(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	if h, err := c.Head(ctx); err != nil || h != base {
		t.Errorf("Head on main = %q, %v; want %q", h, err, base)
	}
	log, err := c.Log(ctx, 5)
	if err != nil || !strings.Contains(log, "initial commit") || strings.Contains(log, "fix: a.txt") {
		t.Errorf("Log on main = %q, %v", log, err)
	}
	status, err := c.Status(ctx)
	if err != nil || !strings.Contains(status, "On branch main") {
		t.Errorf("Status = %q, %v", status, err)
	}

	db, err := registry.Open(ctx, c.RegistryDB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	row, err := db.Get(ctx, contract.ToolGitAgent)
	if err != nil {
		t.Fatal(err)
	}
	if row.RegistrationCount < 10 || row.ExecutablePath == "" || len(row.Actions) != len(server.Actions()) {
		t.Errorf("registry row %+v", row)
	}
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	c := newClient(t, repo)

	err := c.Add(ctx, "../outside.txt")
	var ae *ActionError
	if !errors.As(err, &ae) || !errors.Is(err, ErrActionFailed) || !errors.Is(err, ErrPathRefused) {
		t.Fatalf("Add(../outside.txt) = %v, want a path_refused ActionError", err)
	}
	if ae.Response == nil || ae.Response.RequestID == "" || *ae.Response.PlanID != "plan-7" {
		t.Errorf("ActionError response %+v", ae.Response)
	}

	_, err = c.Commit(ctx, "nothing staged")
	if !errors.As(err, &ae) || ae.Kind != server.KindGitFailed || ae.ExitCode != 1 {
		t.Errorf("Commit with nothing staged = %v, want git_failed with exit 1", err)
	}
	if errors.Is(err, ErrPathRefused) {
		t.Error("a git failure matched ErrPathRefused")
	}

	c.Dir = t.TempDir()
	_, err = c.Status(ctx)
	if !errors.As(err, &ae) || ae.ExitCode != 128 || !strings.Contains(ae.Data, "not a git repository") {
		t.Errorf("Status outside a repository = %v", err)
	}

	missing := *c
	missing.Binary = filepath.Join(t.TempDir(), "no-such-agent")
	if _, err := missing.Status(ctx); !errors.Is(err, ErrAgentUnavailable) {
		t.Errorf("missing binary: %v", err)
	}
}

// TestClientRejectsBadAgents runs the test binary as a misbehaving agent.
func TestClientRejectsBadAgents(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fake    string
		want    error
		timeout time.Duration
	}{
		{"hang", ErrTimeout, 300 * time.Millisecond},
		{"garbage", ErrInvalidResponse, 0},
		{"exit3", ErrAgentFailed, 0},
		{"wrong-id", ErrInvalidResponse, 0},
		{"missing-fields", ErrInvalidResponse, 0},
		{"inconsistent", ErrInvalidResponse, 0},
	} {
		t.Run(tc.fake, func(t *testing.T) {
			c := &Client{
				Binary: self, Timeout: tc.timeout, NoRegister: true,
				Env: sandbox.MergeEnv(ClientEnv(), map[string]string{fakeAgentEnv: tc.fake}),
			}
			_, err := c.Status(context.Background())
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

func TestValidateResponse(t *testing.T) {
	good := `{"request_id":"x","api_version":null,"status":"success","code":0,"result":{"output_type":"text","data":"","metadata":null},"error":null,"plan_id":null,"task_id":null,"correlation_id":null}`
	if _, err := ParseResponse([]byte(good)); err != nil {
		t.Fatalf("good response refused: %v", err)
	}
	for name, bad := range map[string]string{
		"not json":       `{`,
		"missing error":  strings.Replace(good, `"error":null,`, "", 1),
		"code as string": strings.Replace(good, `"code":0`, `"code":"0"`, 1),
		"extra field":    strings.Replace(good, `"error":null`, `"error":null,"extra":1`, 1),
		"result null":    strings.Replace(good, `{"output_type":"text","data":"","metadata":null}`, `null`, 1),
		"status unknown": strings.Replace(good, `"success"`, `"ok"`, 1),
	} {
		if _, err := ParseResponse([]byte(bad)); !errors.Is(err, ErrInvalidResponse) {
			t.Errorf("%s: ParseResponse = %v, want ErrInvalidResponse", name, err)
		}
	}
}
