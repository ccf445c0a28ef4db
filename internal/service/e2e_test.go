package service_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/service"
	"github.com/salve-dev/salve/internal/testbuf"
	"github.com/salve-dev/salve/internal/testrepo"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// binaries builds salve and git_agent once for the end-to-end tests.
func binaries(t *testing.T) (salve, agent string) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "salve-service-e2e-")
		for _, n := range []string{"salve", "git_agent"} {
			if binErr != nil {
				return
			}
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, n), "github.com/salve-dev/salve/cmd/"+n).CombinedOutput()
			if err != nil {
				binErr = fmt.Errorf("build %s: %v: %s", n, err, out)
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "salve"), filepath.Join(binDir, "git_agent")
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = testEnv("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func testEnv(agent string) []string {
	env := append(os.Environ(), "GIT_AUTHOR_NAME=Salve Test", "GIT_AUTHOR_EMAIL=test@salve.invalid",
		"GIT_COMMITTER_NAME=Salve Test", "GIT_COMMITTER_EMAIL=test@salve.invalid", "GIT_CONFIG_NOSYSTEM=1")
	if agent != "" {
		env = append(env, "SALVE_GIT_AGENT="+agent)
	}
	return env
}

// bareBroken makes a bare repository holding the broken Go example (its
// .go.input files become .go) on branch main.
func bareBroken(t *testing.T, name string) string {
	t.Helper()
	work := testrepo.Example(t, "go-broken")
	bare := filepath.Join(t.TempDir(), name+".git")
	gitRun(t, "", "clone", "-q", "--bare", work, bare)
	return bare
}

// proc is a salve process the test started; it is killed at cleanup.
type proc struct {
	cmd    *exec.Cmd
	stderr *testbuf.Buffer
}

func start(t *testing.T, bin, agent string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = testEnv(agent)
	p := &proc{cmd: cmd, stderr: &testbuf.Buffer{}}
	cmd.Stderr = p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The whole process group: builds a killed worker left behind too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s %v stderr (tail):\n%s", filepath.Base(bin), args[0], tail(p.stderr.String(), 3000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// testContext returns a context that ends shortly before the test's own
// deadline (go test -timeout): every wait of these tests is on an event,
// and this is only the cap that turns an event that never comes into a
// failure with the processes' logs rather than a panic of the test binary.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-time.Until(d)/20))
	}
	t.Cleanup(cancel)
	return ctx
}

// waitUntil polls cond until it holds, and fails the test (after calling
// report, if not nil) when ctx ends first. The interval only sets how soon
// a change is seen.
func waitUntil(t *testing.T, ctx context.Context, what string, report func(), cond func() bool) {
	t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			if report != nil {
				report()
			}
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-tick.C:
		}
	}
}

var serveLine = regexp.MustCompile(`API on (http://\S+), NATS on ((?:nats|tls)://\S+)`)

// serve starts salve serve on data and returns its API and NATS URLs.
func serve(t *testing.T, bin, agent, data string, args ...string) (api, natsURL string) {
	t.Helper()
	p := start(t, bin, agent, append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--nats-listen", "127.0.0.1:0"}, args...)...)
	var m []string
	waitUntil(t, testContext(t), "salve serve to say where it listens", func() { t.Log(p.stderr.String()) }, func() bool {
		m = serveLine.FindStringSubmatch(p.stderr.String())
		return m != nil
	})
	return m[1], m[2]
}

func submit(t *testing.T, api, body string) string {
	t.Helper()
	resp, err := http.Post(api+"/api/v1/heals", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID string }
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(b, &out) != nil || out.ID == "" {
		t.Fatalf("POST %s: %d %s", body, resp.StatusCode, b)
	}
	return out.ID
}

func getJob(t *testing.T, api, id string) service.Job {
	t.Helper()
	resp, err := http.Get(api + "/api/v1/heals/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j service.Job
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil {
		t.Fatal(err)
	}
	return j
}

// waitFinal waits for every job to reach a final status.
func waitFinal(t *testing.T, api string, ids []string) map[string]service.Job {
	t.Helper()
	var out map[string]service.Job
	report := func() {
		for _, id := range ids {
			b, _ := json.Marshal(getJob(t, api, id))
			t.Logf("job: %.600s", b)
		}
		t.Logf("only %d of %d jobs finished", len(out), len(ids))
	}
	waitUntil(t, testContext(t), "the jobs to finish", report, func() bool {
		out = map[string]service.Job{}
		for _, id := range ids {
			if j := getJob(t, api, id); j.Status.Final() {
				out[id] = j
			}
		}
		return len(out) == len(ids)
	})
	return out
}

// healBranches lists the heal branches of a bare repository.
func healBranches(t *testing.T, bare string) []string {
	t.Helper()
	out := gitRun(t, bare, "for-each-ref", "--format=%(refname:short)", "refs/heads/salve/")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// TestServeWorkersSurviveKill is the service's end-to-end test: salve serve
// and two salve worker processes heal several repositories; one worker is
// killed with SIGKILL in the middle of a heal. Every job ends green, each
// repository has exactly one heal branch, and the killed job shows its
// redelivery in its attempts.
func TestServeWorkersSurviveKill(t *testing.T) {
	salve, agent := binaries(t)
	data := t.TempDir()
	api, natsURL := serve(t, salve, agent, data, "--workers", "0", "--ack-wait", "3s", "--max-deliver", "4")
	repos := map[string]string{}
	var ids []string
	// Every build waits for the gate file, so the kill surely lands while
	// the doomed worker heals.
	gate := filepath.Join(t.TempDir(), "gate")
	build := fmt.Sprintf("while [ ! -e '%s' ]; do sleep 0.1; done; sh check.sh", gate)
	for _, n := range []string{"alpha", "beta", "gamma"} {
		bare := bareBroken(t, n)
		id := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": %q}`, bare, build))
		repos[id] = bare
		ids = append(ids, id)
	}
	// The doomed worker starts first, so it surely takes a job.
	w1 := start(t, salve, agent, "worker", "--nats", natsURL, "--name", "doomed", "--isolation", "none")

	// Kill the doomed worker once it is healing a job.
	var killed string
	waitUntil(t, testContext(t), "the doomed worker to start a job", func() { t.Log(w1.stderr.String()) }, func() bool {
		for _, id := range ids {
			j := getJob(t, api, id)
			if n := len(j.Attempts); n > 0 && j.Attempts[n-1].Worker == "doomed" && j.Status == service.StatusRunning {
				killed = id
			}
		}
		return killed != ""
	})
	start(t, salve, agent, "worker", "--nats", natsURL, "--name", "survivor", "--isolation", "none")
	if err := syscall.Kill(-w1.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	jobs := waitFinal(t, api, ids)
	for id, j := range jobs {
		if j.Status != service.StatusGreen {
			t.Errorf("job %s: %s (%s)", id, j.Status, j.Error)
		}
		if j.Results == nil || len(j.Results.Commits) == 0 && !j.Attempts[len(j.Attempts)-1].Resumed {
			t.Errorf("job %s: no results or no commit", id)
		}
		branches := healBranches(t, repos[id])
		if len(branches) != 1 || branches[0] != service.BranchFor(id) {
			t.Errorf("job %s: heal branches %v, want exactly [%s]", id, branches, service.BranchFor(id))
		}
		if head := gitRun(t, repos[id], "rev-parse", "refs/heads/"+service.BranchFor(id)); head != j.BranchCommit {
			t.Errorf("job %s: branch at %s, job says %s", id, head, j.BranchCommit)
		}
	}
	// The server recorded every heal in its run store, under the job id.
	var out []byte
	var err error
	n := 0
	waitUntil(t, testContext(t), "the run store to hold every heal", func() { t.Logf("%d of %d heals: %v\n%s", n, len(ids), err, out) }, func() bool {
		out, err = exec.Command(salve, "runs", "list", "--store", filepath.Join(data, "runs.db")).CombinedOutput()
		n = 0
		for _, id := range ids {
			if strings.Contains(string(out), id) {
				n++
			}
		}
		return err == nil && n == len(ids) && strings.Contains(string(out), repos[ids[0]])
	})
	// ... and serves it remotely.
	resp, err := http.Get(api + "/api/v1/runs/" + killed)
	if err != nil {
		t.Fatal(err)
	}
	var view struct {
		Run struct {
			RunID        string `json:"run_id"`
			Kind, Status string
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if resp.StatusCode != 200 || view.Run.RunID != killed || view.Run.Kind != "heal" || view.Run.Status != "green" {
		t.Fatalf("GET /api/v1/runs/%s: %d %+v", killed, resp.StatusCode, view.Run)
	}
	k := jobs[killed]
	if len(k.Attempts) < 2 || k.Attempts[0].Worker != "doomed" || k.Attempts[0].EndedAt != "" {
		t.Fatalf("the killed job's attempts do not show the redelivery: %+v", k.Attempts)
	}
	last := k.Attempts[len(k.Attempts)-1]
	if last.Worker != "survivor" || last.Delivery < 2 || last.Outcome != "green" {
		t.Fatalf("the killed job's last attempt: %+v", last)
	}
}

// TestRedeliveryResumesPushedBranch: a job whose heal branch was already
// pushed by a worker that died before recording the outcome is resumed from
// that branch, and never gets a second branch. Bad jobs (a repository that
// cannot be cloned, a ref that does not exist) end in error with a clear
// reason, and the worker carries on.
func TestRedeliveryResumesPushedBranch(t *testing.T) {
	salve, agent := binaries(t)
	api, natsURL := serve(t, salve, agent, t.TempDir(), "--workers", "0", "--ack-wait", "3s")
	bare := bareBroken(t, "resume")
	id := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": "sh check.sh"}`, bare))
	missing := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "main"}`, filepath.Join(t.TempDir(), "nothing.git")))
	noRef := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "no-such-branch"}`, bare))

	// What a dead worker left: the job's branch with one partial fix
	// (the gofmt one) pushed.
	work := filepath.Join(t.TempDir(), "w")
	gitRun(t, "", "clone", "-q", bare, work)
	gitRun(t, work, "checkout", "-q", "-b", service.BranchFor(id))
	b, err := os.ReadFile(filepath.Join(work, "sum.go"))
	if err != nil {
		t.Fatal(err)
	}
	fmtd, err := exec.Command("gofmt", filepath.Join(work, "sum.go")).Output()
	if err != nil || bytes.Equal(b, fmtd) {
		t.Fatalf("gofmt: %v (changed: %v)", err, !bytes.Equal(b, fmtd))
	}
	if err := os.WriteFile(filepath.Join(work, "sum.go"), fmtd, 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "commit", "-qam", "salve: partial fix by a worker that died")
	partial := gitRun(t, work, "rev-parse", "HEAD")
	gitRun(t, work, "push", "-q", "origin", service.BranchFor(id))

	start(t, salve, agent, "worker", "--nats", natsURL, "--name", "w", "--isolation", "none")
	jobs := waitFinal(t, api, []string{id, missing, noRef})

	j := jobs[id]
	if j.Status != service.StatusGreen || len(j.Attempts) != 1 || !j.Attempts[0].Resumed {
		t.Fatalf("resumed job: %s %q attempts %+v", j.Status, j.Error, j.Attempts)
	}
	if br := healBranches(t, bare); len(br) != 1 || br[0] != service.BranchFor(id) {
		t.Fatalf("heal branches %v, want exactly [%s]", br, service.BranchFor(id))
	}
	head := gitRun(t, bare, "rev-parse", "refs/heads/"+service.BranchFor(id))
	if head != j.BranchCommit {
		t.Fatalf("branch at %s, job says %s", head, j.BranchCommit)
	}
	// The partial fix is kept: the branch moved forward from it.
	gitRun(t, bare, "merge-base", "--is-ancestor", partial, head)
	if head == partial {
		t.Fatalf("the resumed heal did not finish the fix (branch still at the partial commit)")
	}

	for id, want := range map[string]string{missing: "does not appear to be a git repository", noRef: `the ref "no-such-branch" does not exist`} {
		j := jobs[id]
		if j.Status != service.StatusError || !strings.Contains(j.Error, want) {
			t.Errorf("job %s: %s %q, want error with %q", id, j.Status, j.Error, want)
		}
	}
}

// TestServeWebhookToGreen: the default salve serve (one in-process worker)
// turns a signed GitHub workflow_run failure on a file:// repository into
// a heal job, and heals it green with the build command salve detects.
func TestServeWebhookToGreen(t *testing.T) {
	salve, agent := binaries(t)
	t.Setenv(service.EnvGitHubSecret, "e2e-secret")
	api, _ := serve(t, salve, agent, t.TempDir(), "--isolation", "none")
	bare := bareBroken(t, "hooked")
	id := githubWebhook(t, api, "e2e-1", fmt.Sprintf(`{"action":"completed","workflow_run":{"status":"completed","conclusion":"failure","head_branch":"main","head_repository":{"full_name":"acme/hooked"}},"repository":{"full_name":"acme/hooked","clone_url":"file://%s"}}`, bare))
	j := waitFinal(t, api, []string{id})[id]
	if j.Status != service.StatusGreen || j.Request.Source != "github" || j.Request.Repo != "file://"+bare {
		t.Fatalf("job: %s %q %+v", j.Status, j.Error, j.Request)
	}
	if br := healBranches(t, bare); len(br) != 1 || br[0] != service.BranchFor(id) {
		t.Fatalf("heal branches %v", br)
	}
}

// githubWebhook posts body as a workflow_run delivery signed with the
// secret "e2e-secret", and returns the job it queued.
func githubWebhook(t *testing.T, api, delivery, body string) string {
	t.Helper()
	mac := hmac.New(sha256.New, []byte("e2e-secret"))
	mac.Write([]byte(body))
	req, _ := http.NewRequest("POST", api+"/webhooks/github", strings.NewReader(body))
	req.Header.Set("X-GitHub-Event", "workflow_run")
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ ID string }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusAccepted || out.ID == "" {
		t.Fatalf("webhook %s: %d", delivery, resp.StatusCode)
	}
	return out.ID
}

// TestServeUsesExistingNATS: a second salve serve given --nats shares the
// first one's JetStream: a job submitted to it is taken by its in-process
// worker and visible on both servers.
func TestServeUsesExistingNATS(t *testing.T) {
	salve, agent := binaries(t)
	apiA, natsURL := serve(t, salve, agent, t.TempDir(), "--workers", "0")
	apiB, _ := serve(t, salve, agent, t.TempDir(), "--nats", natsURL, "--workers", "1")
	id := submit(t, apiB, fmt.Sprintf(`{"repo": %q, "ref": "main"}`, filepath.Join(t.TempDir(), "absent.git")))
	j := waitFinal(t, apiA, []string{id})[id]
	if j.Status != service.StatusError || len(j.Attempts) != 1 || !strings.Contains(j.Error, "does not appear to be a git repository") {
		t.Fatalf("job: %s %q %+v", j.Status, j.Error, j.Attempts)
	}
}

// TestServeNATSToken: with SALVE_NATS_TOKEN set, the embedded NATS server
// turns away a worker without the token, and a worker with it takes jobs.
func TestServeNATSToken(t *testing.T) {
	salve, agent := binaries(t)
	t.Setenv("SALVE_NATS_TOKEN", "queue-secret-1")
	api, natsURL := serve(t, salve, agent, t.TempDir(), "--workers", "0")

	var env []string
	for _, kv := range testEnv(agent) {
		if !strings.HasPrefix(kv, "SALVE_NATS_TOKEN=") {
			env = append(env, kv)
		}
	}
	for _, tok := range []string{"", "wrong-token"} {
		ctx, cancel := context.WithCancel(testContext(t))
		cmd := exec.CommandContext(ctx, salve, "worker", "--nats", natsURL, "--name", "intruder")
		cmd.Env = env
		if tok != "" {
			cmd.Env = append(env, "SALVE_NATS_TOKEN="+tok)
		}
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut || !strings.Contains(strings.ToLower(string(out)), "authorization") {
			t.Fatalf("a worker with token %q: %v (timed out: %v)\n%s", tok, err, timedOut, out)
		}
		if strings.Contains(string(out), "queue-secret-1") {
			t.Fatalf("the token appears in the worker's output:\n%s", out)
		}
	}

	start(t, salve, agent, "worker", "--nats", natsURL, "--name", "member", "--isolation", "none")
	id := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "main"}`, filepath.Join(t.TempDir(), "absent.git")))
	j := waitFinal(t, api, []string{id})[id]
	if j.Status != service.StatusError || len(j.Attempts) != 1 || j.Attempts[0].Worker != "member" {
		t.Fatalf("job: %s %q %+v", j.Status, j.Error, j.Attempts)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key,
// as PEM files, and returns their paths.
func selfSigned(t *testing.T) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "salve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestServeNATSTLS: with a certificate, the embedded NATS server speaks
// TLS only. A worker that does not trust the certificate cannot connect,
// whether it asks for tls:// or nats:// (the server's TLS requirement
// upgrades it); one given the certificate with --nats-ca takes jobs.
func TestServeNATSTLS(t *testing.T) {
	salve, agent := binaries(t)
	cert, key := selfSigned(t)
	api, natsURL := serve(t, salve, agent, t.TempDir(), "--workers", "0", "--nats-tls-cert", cert, "--nats-tls-key", key)
	if !strings.HasPrefix(natsURL, "tls://") {
		t.Fatalf("salve serve gives %s, want a tls:// URL", natsURL)
	}
	for _, args := range [][]string{
		{"--nats", natsURL},
		{"--nats", "nats://" + strings.TrimPrefix(natsURL, "tls://")},
	} {
		ctx, cancel := context.WithCancel(testContext(t))
		cmd := exec.CommandContext(ctx, salve, append([]string{"worker", "--name", "outsider"}, args...)...)
		cmd.Env = testEnv(agent)
		out, err := cmd.CombinedOutput()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil || timedOut || !strings.Contains(string(out), "certificate") {
			t.Fatalf("a worker with %v: %v (timed out: %v), want a certificate error\n%s", args, err, timedOut, out)
		}
	}
	// A certificate without its key is bad input.
	if out, err := exec.Command(salve, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--nats-listen", "127.0.0.1:0", "--nats-tls-cert", cert).CombinedOutput(); err == nil || !strings.Contains(string(out), "certificate and its key") {
		t.Fatalf("serve with a certificate and no key: %v\n%s", err, out)
	}

	start(t, salve, agent, "worker", "--nats", natsURL, "--nats-ca", cert, "--name", "member", "--isolation", "none")
	id := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "main"}`, filepath.Join(t.TempDir(), "absent.git")))
	j := waitFinal(t, api, []string{id})[id]
	if j.Status != service.StatusError || len(j.Attempts) != 1 || j.Attempts[0].Worker != "member" {
		t.Fatalf("job: %s %q %+v", j.Status, j.Error, j.Attempts)
	}
}
