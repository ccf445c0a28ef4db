// Command bench is the scale benchmark of salve serve and salve worker (not
// part of make test): a three-node JetStream cluster made of three
// salve serve processes, a replicated stream, N worker processes and many
// heal jobs on small local repositories; optionally one worker and one NATS
// node are killed with SIGKILL mid-run. It prints a Markdown report: jobs per
// minute, p50/p99 time in queue, recovery times, and whether every job
// completed exactly once (green, one heal branch per repository).
//
//	go run ./scripts/service/bench -jobs 200 -workers 4 -kill
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/service"
)

func main() {
	jobs := flag.Int("jobs", 200, "heal jobs")
	workers := flag.Int("workers", 4, "worker processes")
	nodes := flag.Int("nodes", 3, "salve serve processes forming the JetStream cluster (1: no cluster)")
	kill := flag.Bool("kill", true, "SIGKILL one worker at 30% and one NATS node at 50% of the jobs")
	timeout := flag.Duration("timeout", 20*time.Minute, "give up after this long")
	flag.Parse()
	if err := run(*jobs, *workers, *nodes, *kill, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type proc struct {
	cmd *exec.Cmd
	log string // the file holding its stderr
}

var procs []*proc

func start(env []string, bin string, args ...string) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	f, err := os.CreateTemp(logDir, "*.log")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &proc{cmd: cmd, log: f.Name()}
	cmd.Stderr = f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	procs = append(procs, p)
	return p, nil
}

var logDir string

func (p *proc) kill() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); _ = p.cmd.Wait() }

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}

// The small project each job heals: one badly formatted Go file and a
// check that reports it as gofmt does in CI.
const (
	brokenGo = "package main\n\nfunc main() {\n  println(\"hello\")\n}\n"
	fmtCheck = `#!/bin/sh
rc=0
for f in $(gofmt -l .); do
	gofmt -d "$f" | awk -v f="$f" '
		/^@@/ { split($2, a, ","); l = -a[1]; next }
		/^---|^\+\+\+|^diff/ { next }
		/^-/ { print f ":" l ":1: File is not properly formatted (gofmt)"; exit }
		/^ / { l++ }'
	rc=1
done
exit $rc
`
)

func makeRepo(dir string, i int) (string, error) {
	work := filepath.Join(dir, fmt.Sprintf("w%03d", i))
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", err
	}
	for name, body := range map[string]string{"main.go": brokenGo, "check.sh": fmtCheck, "go.mod": "module bench\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	bare := filepath.Join(dir, fmt.Sprintf("r%03d.git", i))
	for _, a := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "broken"}, {"clone", "-q", "--bare", ".", bare}} {
		if err := git(work, a...); err != nil {
			return "", err
		}
	}
	return bare, os.RemoveAll(work)
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func parse(ts string) time.Time { t, _ := time.Parse(time.RFC3339Nano, ts); return t }

func run(nJobs, nWorkers, nNodes int, doKill bool, timeout time.Duration) error {
	defer func() {
		for _, p := range procs {
			p.kill()
		}
	}()
	dir, err := os.MkdirTemp("", "salve-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	logDir = dir
	for _, n := range []string{"salve", "git_agent"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, n), "github.com/salve-dev/salve/cmd/"+n).CombinedOutput()
		if err != nil {
			return fmt.Errorf("build %s: %v %s", n, err, out)
		}
	}
	salve := filepath.Join(dir, "salve")
	env := append(os.Environ(), "SALVE_GIT_AGENT="+filepath.Join(dir, "git_agent"),
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@salve.invalid", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@salve.invalid")

	// The cluster: nNodes salve serve processes, each embedding a node.
	var routes, natsURLs, apis []string
	clientPorts, routePorts := make([]int, nNodes), make([]int, nNodes)
	for i := range nNodes {
		clientPorts[i], routePorts[i] = freePort(), freePort()
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", routePorts[i]))
		natsURLs = append(natsURLs, fmt.Sprintf("nats://127.0.0.1:%d", clientPorts[i]))
	}
	var nodes []*proc
	for i := range nNodes {
		args := []string{"serve", "--data", filepath.Join(dir, fmt.Sprintf("node%d", i)), "--listen", "127.0.0.1:0",
			"--nats-listen", fmt.Sprintf("127.0.0.1:%d", clientPorts[i]), "--workers", "0", "--ack-wait", "10s", "--node-name", fmt.Sprintf("n%d", i)}
		if nNodes > 1 {
			args = append(args, "--cluster-listen", fmt.Sprintf("127.0.0.1:%d", routePorts[i]), "--routes", strings.Join(routes, ","), "--replicas", "3")
		}
		p, err := start(env, salve, args...)
		if err != nil {
			return err
		}
		nodes = append(nodes, p)
	}
	re := regexp.MustCompile(`API on (http://\S+),`)
	for _, p := range nodes {
		for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			b, _ := os.ReadFile(p.log)
			if m := re.FindSubmatch(b); m != nil {
				apis = append(apis, string(m[1]))
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("a node did not start: %s", b)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "bench: %d node(s) up\n", nNodes)

	repos := make([]string, nJobs)
	for i := range nJobs {
		if repos[i], err = makeRepo(dir, i); err != nil {
			return err
		}
	}
	var ws []*proc
	for i := range nWorkers {
		p, err := start(env, salve, "worker", "--nats", strings.Join(natsURLs, ","), "--name", fmt.Sprintf("w%d", i), "--isolation", "none")
		if err != nil {
			return err
		}
		ws = append(ws, p)
	}
	ids := make([]string, nJobs)
	repoOf := map[string]string{}
	t0 := time.Now()
	for i := range nJobs {
		body := fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": "sh check.sh"}`, repos[i])
		resp, err := http.Post(apis[i%len(apis)]+"/api/v1/heals", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		var out struct{ ID string }
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if out.ID == "" {
			return fmt.Errorf("submit: %s", resp.Status)
		}
		ids[i], repoOf[out.ID] = out.ID, repos[i]
	}
	submitted := time.Since(t0)
	api := apis[0]
	var killedWorkerAt, killedNodeAt time.Time
	var final map[string]service.Job
	for {
		final = map[string]service.Job{}
		for _, id := range ids {
			var j service.Job
			if err := getJSON(api+"/api/v1/heals/"+id, &j); err == nil && j.Status.Final() {
				final[id] = j
			}
		}
		done := len(final)
		if doKill && killedWorkerAt.IsZero() && done >= nJobs*3/10 {
			ws[0].kill()
			killedWorkerAt = time.Now()
			fmt.Fprintf(os.Stderr, "bench: killed worker w0 at %d/%d\n", done, nJobs)
		}
		if doKill && nNodes > 1 && killedNodeAt.IsZero() && done >= nJobs/2 {
			nodes[nNodes-1].kill()
			killedNodeAt = time.Now()
			fmt.Fprintf(os.Stderr, "bench: killed node n%d at %d/%d\n", nNodes-1, done, nJobs)
		}
		if done == nJobs {
			break
		}
		if time.Since(t0) > timeout {
			return fmt.Errorf("only %d of %d jobs finished in %s", done, nJobs, timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}

	// Figures.
	var queue []float64
	var last time.Time
	green, oneBranch, redelivered := 0, 0, 0
	var recovery []float64
	var afterNode time.Time
	for id, j := range final {
		created := parse(j.CreatedAt)
		if len(j.Attempts) > 0 {
			queue = append(queue, parse(j.Attempts[0].StartedAt).Sub(created).Seconds())
		}
		done := parse(j.UpdatedAt)
		if done.After(last) {
			last = done
		}
		if !killedNodeAt.IsZero() && done.After(killedNodeAt) && (afterNode.IsZero() || done.Before(afterNode)) {
			afterNode = done
		}
		if j.Status == service.StatusGreen {
			green++
		}
		if len(j.Attempts) > 1 {
			redelivered++
			for _, a := range j.Attempts[1:] {
				if !killedWorkerAt.IsZero() && parse(a.StartedAt).After(killedWorkerAt) {
					recovery = append(recovery, parse(a.StartedAt).Sub(killedWorkerAt).Seconds())
					break
				}
			}
		}
		out, err := exec.Command("git", "-C", repoOf[id], "for-each-ref", "--format=%(refname:short)", "refs/heads/salve/").Output()
		if err == nil && strings.TrimSpace(string(out)) == service.BranchFor(id) {
			oneBranch++
		}
	}
	wall := last.Sub(t0)
	fmt.Printf("| nodes | workers | jobs | submit | wall | jobs/min | queue p50 | queue p99 | green | one branch each | redelivered | worker-kill recovery | node-kill: next completion |\n")
	fmt.Printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	rec, nodeRec := "—", "—"
	if len(recovery) > 0 {
		rec = fmt.Sprintf("%.1f s", slices.Min(recovery))
	}
	if !afterNode.IsZero() {
		nodeRec = fmt.Sprintf("%.1f s", afterNode.Sub(killedNodeAt).Seconds())
	}
	fmt.Printf("| %d | %d | %d | %.1f s | %.1f s | %.1f | %.1f s | %.1f s | %d/%d | %d/%d | %d | %s | %s |\n",
		nNodes, nWorkers, nJobs, submitted.Seconds(), wall.Seconds(), float64(nJobs)/wall.Minutes(), pct(queue, 0.5), pct(queue, 0.99),
		green, nJobs, oneBranch, nJobs, redelivered, rec, nodeRec)
	if green != nJobs || oneBranch != nJobs {
		return fmt.Errorf("not every job completed exactly once: %d green, %d with exactly one branch, of %d", green, oneBranch, nJobs)
	}
	return nil
}
