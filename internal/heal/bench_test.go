package heal_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/testrepo"
)

// BenchmarkHealGo heals the Go example (examples/testdata/go-broken) from
// scratch per iteration, with real builds and the git agent, and reports
// the wall time of each stage as the run store recorded it (seconds per
// heal, metric "<stage>-s/op").
func BenchmarkHealGo(b *testing.B) {
	need(b, "go", "gofmt")
	gitIdentity(b)
	st, err := store.Open(filepath.Join(b.TempDir(), "runs.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	sums := map[string]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		repo := testrepo.Example(b, "go-broken")
		o := options(b, repo, "sh check.sh")
		o.Recorder = adapter.Recorder{Store: st}
		b.StartTimer()
		res, err := heal.Run(context.Background(), o)
		if err != nil || res.Outcome != results.OutcomeGreen {
			b.Fatalf("heal: %v, outcome %v", err, res)
		}
		b.StopTimer()
		t, err := adapter.Timings(context.Background(), st, res.RunID)
		if err != nil {
			b.Fatal(err)
		}
		for k, v := range t {
			sums[k] += v
		}
		b.StartTimer()
	}
	b.StopTimer()
	names := make([]string, 0, len(sums))
	for k := range sums {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b.ReportMetric(sums[k]/float64(b.N), k+"-s/op")
	}
}
