// Command workerbench measures a queue worker's warm job against the
// repository's own warm builds (issue 37: a worker's second job of a
// repository takes at most 1.3 times that repository's own failing and
// passing builds). It is not part of make test: it takes minutes.
//
// It makes a small Go module with one slip (a missing import, which the
// rules tier fixes) in a local bare repository, starts salve serve with
// one in-process worker, and heals one job of it to warm the worker's
// caches (its kept clone and the repository's build-cache layer) and to
// get the fix. Then each round runs, one after the other:
//
//   - fail, pass: the project's own build command in a warm checkout, with
//     go's cached test results forgotten first (go clean -testcache; the
//     compiled packages stay), as they are before each job,
//     broken, then with the heal's fix; then the same two in that
//     checkout cleaned before each build (git clean -ffdx), as a CI
//     runner's checkout is: go build's binary from the last build is
//     gone, so the passing build links it again, as a heal's does;
//   - after: one job of the repository on that salve serve;
//   - before: the same on a second salve serve running the binaries in
//     -before (another version of salve, such as the one that cloned each
//     job afresh), when given.
//
// A job's time is its attempt's, as the worker records it (from taking
// the job to recording its outcome: checkout, heal, push, read-back), and
// also as the client sees it (from submitting to reading the final
// status). Every timed job must end green. It prints each round and the
// medians (ratios are taken round by round), then where each version's
// jobs spent their time: the worker's part before the heal, each stage of
// the heal as the heal times it, the rest of the heal, and the worker's
// part after it. -files N adds N tracked data files to the project, to
// measure a repository of that size; -log-level debug with -keep leaves
// each step's log lines.
//
//	go run ./scripts/service/workerbench -rounds 5 [-before DIR] [-isolation none] [-files N]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/service"
)

func main() {
	rounds := flag.Int("rounds", 5, "timed rounds (a small run: 1)")
	before := flag.String("before", "", "a folder holding the salve and git_agent of another version, measured side by side")
	isolation := flag.String("isolation", "auto", "the workers' build sandbox")
	cmd := flag.String("cmd", "go build ./... && go test ./...", "the project's build command")
	keep := flag.Bool("keep", false, "keep the work folder (the servers' logs are there) and print its path")
	logLevel := flag.String("log-level", "", "the servers' --log-level (debug: every step of a job, timed, in the logs -keep keeps)")
	files := flag.Int("files", 0, "tracked data files added to the project (100 to a folder): a repository that size")
	flag.Parse()
	if err := run(*rounds, *before, *isolation, *cmd, *logLevel, *files, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "workerbench:", err)
		os.Exit(1)
	}
}

// The module: main.go uses strings without importing it.
var project = map[string]string{
	"go.mod":  "module example.com/greet\n\ngo 1.22\n",
	"main.go": "// Command greet prints a greeting.\npackage main\n\nimport \"fmt\"\n\n// Greeting returns the greeting for name, shouted.\nfunc Greeting(name string) string {\n\treturn \"HELLO, \" + strings.ToUpper(name) + \"!\"\n}\n\nfunc main() {\n\tfmt.Println(Greeting(\"world\"))\n}\n",
	"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestGreeting(t *testing.T) {\n\tif got := Greeting(\"world\"); got != \"HELLO, WORLD!\" {\n" +
		"\t\tt.Errorf(\"Greeting(world) = %q\", got)\n\t}\n}\n",
}

// server is one salve serve with its own data, state and cache folders.
type server struct {
	name, api string
	cmd       *exec.Cmd
}

func run(rounds int, before, isolation, buildCmd, logLevel string, files int, keep bool) error {
	dir, err := os.MkdirTemp("", "salve-workerbench-")
	if err != nil {
		return err
	}
	defer func() {
		if keep {
			fmt.Fprintln(os.Stderr, "workerbench: kept", dir)
			return
		}
		_ = exec.Command("chmod", "-R", "u+w", dir).Run()
		_ = os.RemoveAll(dir)
	}()
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	env := append(os.Environ(), "GOCACHE="+strings.TrimSpace(string(gocache)),
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@salve.invalid", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@salve.invalid")
	bins := filepath.Join(dir, "after")
	for _, n := range []string{"salve", "git_agent"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bins, n), "github.com/salve-dev/salve/cmd/"+n).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v %s", n, err, out)
		}
	}
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "greet.git")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	for name, body := range project {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	for i := range files {
		d := filepath.Join(work, "data", fmt.Sprintf("d%03d", i/100))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%05d.txt", i)), []byte(fmt.Sprintf("data file %d\n", i)), 0o644); err != nil {
			return err
		}
	}
	for _, a := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "broken"}, {"clone", "-q", "--bare", ".", bare}} {
		if err := git(env, work, a...); err != nil {
			return err
		}
	}
	servers := []*server{{name: "after"}}
	if before != "" {
		servers = append(servers, &server{name: "before"})
	}
	defer func() {
		for _, s := range servers {
			if s.cmd != nil {
				_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
				_ = s.cmd.Wait()
			}
		}
	}()
	body := fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": %q, "fixers": "rules"}`, bare, buildCmd)
	var fixBranch string
	for _, s := range servers {
		b := bins
		if s.name == "before" {
			b = before
		}
		if err := s.start(env, dir, b, isolation, logLevel); err != nil {
			return err
		}
		j, _, err := s.job(body) // warms the worker's caches
		if err != nil {
			return fmt.Errorf("%s: the first job: %w", s.name, err)
		}
		if fixBranch == "" {
			fixBranch = j.Branch
		}
	}
	if err := git(env, work, "fetch", "-q", bare, "+refs/heads/"+fixBranch+":refs/heads/fixed"); err != nil {
		return err
	}
	// direct runs the project's two builds in the warm checkout: as a
	// developer's checkout, with what the last build left (go build's
	// binary: no link when it is up to date), or, clean, emptied of
	// untracked files before each build as a CI runner's checkout is
	// (actions/checkout cleans with git clean -ffdx).
	direct := func(clean bool) (fail, pass float64, err error) {
		tidy := func() error {
			if !clean {
				return nil
			}
			return git(env, work, "clean", "-q", "-ffdx")
		}
		if err := tidy(); err != nil {
			return 0, 0, err
		}
		if err := freshTests(env); err != nil {
			return 0, 0, err
		}
		fail = timed(env, work, buildCmd) // meant to fail
		if err := git(env, work, "checkout", "-q", "fixed", "--", "."); err != nil {
			return 0, 0, err
		}
		if err := tidy(); err != nil {
			return 0, 0, err
		}
		if err := freshTests(env); err != nil {
			return 0, 0, err
		}
		pass = timed(env, work, buildCmd)
		return fail, pass, git(env, work, "checkout", "-q", "main", "--", ".")
	}
	if _, _, err := direct(false); err != nil { // warms the user's caches
		return err
	}
	fmt.Printf("A worker's warm job against the repository's own builds: %d round(s), isolation %s, %d cores, command %q, %d data files\n\n", rounds, isolation, runtime.NumCPU(), buildCmd, files)
	head := "| round | fail build s | pass build s | both s | both, clean checkout s |"
	for _, s := range servers {
		head += fmt.Sprintf(" %s: job s (/both, /clean) | %s: submit to done s |", s.name, s.name)
	}
	fmt.Println(head)
	fmt.Println("|" + strings.Repeat("---|", 5+2*len(servers)))
	both, cleans := []float64{}, []float64{}
	jobs := map[string][]float64{}
	ends := map[string][]float64{}
	ratios := map[string][]float64{}
	cratios := map[string][]float64{}
	parts := map[string]map[string][]float64{}
	for _, s := range servers {
		parts[s.name] = map[string][]float64{}
	}
	for i := range rounds {
		f, p, err := direct(false)
		if err != nil {
			return err
		}
		cf, cp, err := direct(true)
		if err != nil {
			return err
		}
		row := fmt.Sprintf("| %d | %.2f | %.2f | %.2f | %.2f |", i+1, f, p, f+p, cf+cp)
		both, cleans = append(both, f+p), append(cleans, cf+cp)
		for _, s := range servers {
			if err := freshTests(env); err != nil {
				return err
			}
			j, took, err := s.job(body)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", s.name, i+1, err)
			}
			for k, v := range split(j) {
				parts[s.name][k] = append(parts[s.name][k], v)
			}
			jobs[s.name] = append(jobs[s.name], took[0])
			ends[s.name] = append(ends[s.name], took[1])
			ratios[s.name] = append(ratios[s.name], took[0]/(f+p))
			cratios[s.name] = append(cratios[s.name], took[0]/(cf+cp))
			row += fmt.Sprintf(" %.2f (%.2fx, %.2fx) | %.2f |", took[0], took[0]/(f+p), took[0]/(cf+cp), took[1])
		}
		fmt.Println(row)
	}
	row := fmt.Sprintf("| median | | | %.2f | %.2f |", median(both), median(cleans))
	for _, s := range servers {
		row += fmt.Sprintf(" %.2f (%.2fx, %.2fx) | %.2f |", median(jobs[s.name]), median(ratios[s.name]), median(cratios[s.name]), median(ends[s.name]))
	}
	fmt.Println(row)
	fmt.Printf("\nWhere a job's time goes (medians, s):\n\n| |")
	for _, c := range parts0 {
		fmt.Printf(" %s |", c)
	}
	fmt.Println("\n|" + strings.Repeat("---|", 1+len(parts0)))
	for _, s := range servers {
		fmt.Printf("| %s |", s.name)
		for _, c := range parts0 {
			fmt.Printf(" %.3f |", median(parts[s.name][c]))
		}
		fmt.Println()
	}
	return nil
}

// parts0 are the parts of a job's attempt split reports, in order: the
// worker's part before the heal (checking the remote, fetching, the job's
// clone, the heal's assembly), the heal's stages, the rest of the heal
// (parse, fix, gate and what no stage times), and the worker's part after
// it (the outcome read and recorded, the caches trimmed).
var parts0 = []string{"before heal", results.StageSetup, results.StageBuild, results.StageVerify, results.StageCommit,
	results.StagePush, results.StageCI, results.StageCleanup, "heal other", "after heal"}

// split divides a job's last attempt into parts0, from the attempt's and
// the heal's own times.
func split(j service.Job) map[string]float64 {
	a, r := j.Attempts[len(j.Attempts)-1], j.Results
	if r == nil {
		return nil
	}
	hs, he := parse(r.StartedAt), parse(r.CompletedAt)
	m := map[string]float64{"before heal": hs.Sub(parse(a.StartedAt)).Seconds(), "after heal": parse(a.EndedAt).Sub(he).Seconds()}
	other := he.Sub(hs).Seconds()
	for _, st := range parts0[1 : len(parts0)-2] {
		m[st] = r.Timings[st]
		other -= r.Timings[st]
	}
	m["heal other"] = other
	return m
}

var apiLine = regexp.MustCompile(`API on (http://\S+),`)

// start runs salve serve from the folder bins with one in-process worker,
// and waits for it to say where its API listens.
func (s *server) start(env []string, dir, bins, isolation, logLevel string) error {
	home := filepath.Join(dir, s.name)
	log, err := os.Create(filepath.Join(dir, s.name+".log"))
	if err != nil {
		return err
	}
	defer log.Close()
	s.cmd = exec.Command(filepath.Join(bins, "salve"), "serve", "--data", filepath.Join(home, "serve"), "--listen", "127.0.0.1:0",
		"--nats-listen", "127.0.0.1:0", "--workers", "1", "--isolation", isolation)
	if logLevel != "" {
		s.cmd.Args = append(s.cmd.Args, "--log-level", logLevel)
	}
	s.cmd.Env = append(slices.Clone(env), "SALVE_GIT_AGENT="+filepath.Join(bins, "git_agent"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	s.cmd.Stderr = log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(log.Name())
		if m := apiLine.FindSubmatch(b); m != nil {
			s.api = string(m[1])
			return nil
		}
	}
	b, _ := os.ReadFile(log.Name())
	return fmt.Errorf("%s: salve serve did not start: %s", s.name, b)
}

// job submits body, waits for the job to end green, and returns it with
// its attempt's time and the time from submitting to reading it done.
func (s *server) job(body string) (service.Job, [2]float64, error) {
	t0 := time.Now()
	resp, err := http.Post(s.api+"/api/v1/heals", "application/json", strings.NewReader(body))
	if err != nil {
		return service.Job{}, [2]float64{}, err
	}
	var out struct{ ID string }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if out.ID == "" {
		return service.Job{}, [2]float64{}, fmt.Errorf("submit: %s", resp.Status)
	}
	for deadline := t0.Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var j service.Job
		if err := getJSON(s.api+"/api/v1/heals/"+out.ID, &j); err != nil || !j.Status.Final() {
			continue
		}
		end := time.Since(t0).Seconds()
		if j.Status != service.StatusGreen || len(j.Attempts) == 0 {
			return j, [2]float64{}, fmt.Errorf("job %s ended %s: %s", j.ID, j.Status, j.Error)
		}
		a := j.Attempts[len(j.Attempts)-1]
		return j, [2]float64{parse(a.EndedAt).Sub(parse(a.StartedAt)).Seconds(), end}, nil
	}
	return service.Job{}, [2]float64{}, fmt.Errorf("job %s did not end in 10 minutes", out.ID)
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

func parse(ts string) time.Time { t, _ := time.Parse(time.RFC3339Nano, ts); return t }

// timed runs the shell command c in dir and returns its wall time.
func timed(env []string, dir, c string) float64 {
	cmd := exec.Command("sh", "-c", c)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	_ = cmd.Run()
	return time.Since(t0).Seconds()
}

// freshTests forgets the test results go test caches (the compiled
// packages stay), before each of the project's own builds and each job:
// the passing build then runs its tests, as it does after a fix its tests
// have not seen, instead of replaying the result the last round left; the
// jobs' builds see the same.
func freshTests(env []string) error {
	cmd := exec.Command("go", "clean", "-testcache")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go clean -testcache: %v: %s", err, out)
	}
	return nil
}

func git(env []string, dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
