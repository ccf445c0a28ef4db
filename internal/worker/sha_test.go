package worker

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/service"
)

// gitCmd is git in dir, as a user with a name and an address.
func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
	cmd.Dir = dir
	return cmd
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitCmd(dir, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// movedOn makes a bare repository whose main has a failing commit and,
// on top of it, a newer one: the failing commit is no longer the tip.
func movedOn(t *testing.T) (bare, failing, tip string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "w"), filepath.Join(dir, "r.git")
	gitOut(t, dir, "init", "-q", "-b", "main", work)
	gitOut(t, work, "commit", "-q", "--allow-empty", "-m", "init")
	gitOut(t, work, "commit", "-q", "--allow-empty", "-m", "breaks the build")
	failing = gitOut(t, work, "rev-parse", "HEAD")
	gitOut(t, work, "commit", "-q", "--allow-empty", "-m", "main moved on")
	tip = gitOut(t, work, "rev-parse", "HEAD")
	gitOut(t, dir, "clone", "-q", "--bare", work, bare)
	return bare, failing, tip
}

// TestWorkerHealsTheFailingSha: a job naming the commit whose CI failed is
// healed at that commit, though main has moved on since; the job's models
// reach the heal; the heal's results feed the worker's metrics.
func TestWorkerHealsTheFailingSha(t *testing.T) {
	bare, failing, tip := movedOn(t)
	q := newQueue(t, ackWait, 2)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	var got Spec
	var head, branch string
	w := &Worker{Queue: q, Name: "w", TempDir: t.TempDir(), Metrics: m, Heal: func(ctx context.Context, s Spec) (*results.Results, error) {
		got = s
		head = gitOut(t, s.Dir, "rev-parse", "HEAD")
		branch = gitOut(t, s.Dir, "rev-parse", "--abbrev-ref", "HEAD")
		cost := 0.25
		res := &results.Results{Outcome: results.OutcomeRed, BaseCommit: head,
			ByType: map[string]results.TypeRate{"compile_error": {Found: 2, Fixed: 1, Left: 1}, "Bad Label!": {Found: 1, Rejected: 1, Left: 1}}}
		res.LLM.Requests, res.LLM.InputTokens, res.LLM.OutputTokens, res.LLM.CostUSD = 2, 1000, 200, cost
		return res, nil
	}}
	runWorker(t, w)
	models := []string{"anthropic/claude-sonnet-4", "openai/gpt-4.1"}
	j, err := q.Submit(context.Background(), service.Request{Repo: bare, Ref: "main", Sha: failing, Models: models, Source: "github"})
	if err != nil {
		t.Fatal(err)
	}
	done := waitFinal(t, q, j.ID)
	if done.Status != service.StatusRed || done.Request.Sha != failing {
		t.Fatalf("job %s, sha %q: %+v", done.Status, done.Request.Sha, done)
	}
	if head != failing || head == tip {
		t.Fatalf("healed %s, want the failing %s (tip %s)", head, failing, tip)
	}
	if branch != "main" || got.Sha != failing || !slices.Equal(got.Models, models) {
		t.Fatalf("spec: branch %q, sha %q, models %v", branch, got.Sha, got.Models)
	}
	if done.Results == nil || done.Results.BaseCommit != failing {
		t.Fatalf("results: %+v", done.Results)
	}
	for name, want := range map[string]float64{
		`salve_heal_bugs_total{error_type="compile_error",status="fixed"}`:   1,
		`salve_heal_bugs_total{error_type="compile_error",status="unfixed"}`: 1,
		`salve_heal_bugs_total{error_type="other",status="rejected"}`:        1,
		`salve_llm_tokens_total{direction="input"}`:                          1000,
		`salve_llm_cost_usd_total`:                                           0.25,
	} {
		if v := metricValue(t, reg, name); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(mfs, func(mf *dto.MetricFamily) bool { return mf.GetName() == "salve_heal_duration_seconds" })
	if i < 0 || len(mfs[i].GetMetric()) != 1 || mfs[i].GetMetric()[0].GetHistogram().GetSampleCount() != 1 {
		t.Errorf("salve_heal_duration_seconds: want one observation, got %v", mfs)
	}
}

// TestWorkerShaNotInRepository: a commit the repository does not have
// ends the job in error at once, with the reason.
func TestWorkerShaNotInRepository(t *testing.T) {
	bare := bareRepo(t)
	q := newQueue(t, ackWait, 5)
	w := &Worker{Queue: q, Name: "w", TempDir: t.TempDir(), Heal: func(context.Context, Spec) (*results.Results, error) {
		t.Error("healed a commit that is not there")
		return &results.Results{Outcome: results.OutcomeGreen}, nil
	}}
	runWorker(t, w)
	j, err := q.Submit(context.Background(), service.Request{Repo: bare, Ref: "main", Sha: strings.Repeat("d", 40)})
	if err != nil {
		t.Fatal(err)
	}
	done := waitFinal(t, q, j.ID)
	if done.Status != service.StatusError || !strings.Contains(done.Error, "is not in the repository") || len(done.Attempts) != 1 {
		t.Fatalf("job %s: %q, %d attempt(s)", done.Status, done.Error, len(done.Attempts))
	}
}

// metricValue reads one series, named in the text format, from reg.
func metricValue(t *testing.T, reg *prometheus.Registry, series string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	name, labels, _ := strings.Cut(series, "{")
	labels = strings.TrimSuffix(labels, "}")
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var parts []string
			for _, l := range m.GetLabel() {
				parts = append(parts, l.GetName()+`="`+l.GetValue()+`"`)
			}
			if strings.Join(parts, ",") != labels {
				continue
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return -1
}
