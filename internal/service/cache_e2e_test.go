package service_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/service"
)

// TestWorkerJobsShareTheLayer runs salve serve with one in-process worker
// building in bwrap, and four jobs of one repository. Each build plants a
// file in its GOCACHE and the next jobs' builds require what they must see:
// the second job sees the first one's file (one layer for the repository,
// not one per clone), an untrusted job's file is seen by no later job, and
// only one repository directory is left in salve's build cache, with no
// throw-away layer. /metrics reports the cache's size.
func TestWorkerJobsShareTheLayer(t *testing.T) {
	salve, agent := binaries(t)
	ctx := context.Background()
	if (sandbox.Bwrap{}).Probe(ctx, "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !(sandbox.Bwrap{}).Detect(ctx).Features.Overlay {
		t.Skip("overlays cannot be mounted in a bwrap sandbox here: no layer stacks")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // the worker's build cache, and only this test's
	api, _ := serve(t, salve, agent, t.TempDir(), "--workers", "1", "--isolation", "bwrap")
	bare := bareBroken(t, "shared")
	plant := func(name string) string { return fmt.Sprintf(`echo x > "$GOCACHE/%s"; `, name) }
	jobs := []struct {
		body string
		want service.Status
	}{
		{fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": %q}`, bare, plant("first")+"sh check.sh"), service.StatusGreen},
		{fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": %q}`, bare, `test -e "$GOCACHE/first" && sh check.sh`), service.StatusGreen},
		{fmt.Sprintf(`{"repo": %q, "ref": "main", "untrusted": true, "cmd": %q}`, bare, `test -e "$GOCACHE/first" && `+plant("fork")+"sh check.sh"), service.StatusGreen},
		{fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": %q}`, bare, `test -e "$GOCACHE/first" && test ! -e "$GOCACHE/fork" && sh check.sh`), service.StatusGreen},
	}
	var ids []string
	for _, j := range jobs {
		ids = append(ids, submit(t, api, j.body))
	}
	done := waitFinal(t, api, ids)
	for i, id := range ids {
		j := done[id]
		if j.Status != jobs[i].want {
			t.Errorf("job %d: %s (%s), want %s", i+1, j.Status, j.Error, jobs[i].want)
		}
		if n := len(j.Attempts); n > 0 {
			a := j.Attempts[n-1]
			began, _ := time.Parse(time.RFC3339Nano, a.StartedAt)
			ended, _ := time.Parse(time.RFC3339Nano, a.EndedAt)
			t.Logf("job %d took %s", i+1, ended.Sub(began).Round(time.Millisecond))
		}
	}
	repos, err := os.ReadDir(filepath.Join(cache, "salve", "sandbox", "repos"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range repos {
		names = append(names, r.Name())
	}
	if len(names) != 1 {
		t.Fatalf("repository directories %v, want one for the four jobs", names)
	}
	dir := filepath.Join(cache, "salve", "sandbox", "repos", names[0])
	if _, err := os.Stat(filepath.Join(dir, "layer", "go-build", "first")); err != nil {
		t.Errorf("the first job's entry is not in the repository's layer: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "layer", "go-build", "fork")); err == nil {
		t.Errorf("the untrusted job wrote into the repository's layer")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "untrusted", "*")); len(left) != 0 {
		t.Errorf("throw-away layers left behind: %v", left)
	}
	if n := metric(t, api, "salve_build_cache_bytes"); n <= 0 {
		t.Errorf("salve_build_cache_bytes = %v, want the layer's size", n)
	}
}

// metric reads one unlabelled value from salve serve's /metrics.
func metric(t *testing.T, api, name string) float64 {
	t.Helper()
	resp, err := http.Get(api + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("%s is not in /metrics", name)
	return 0
}
