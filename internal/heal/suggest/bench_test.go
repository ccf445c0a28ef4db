package suggest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFix measures the tier's own work on each recorded case: parsing
// the recorded structured output, matching suggestions to the reports and
// applying them. The re-run itself is replayed, so the figure leaves out
// the compiler's time (see docs/bench-suggest.md for whole heals).
func BenchmarkFix(b *testing.B) {
	cases, _ := filepath.Glob("testdata/*.txtar")
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txtar")
		b.Run(name, func(b *testing.B) {
			in, ex := loadCase(b, c)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// A new Fixer each time: no cached re-run.
				_, _ = (&Fixer{Executor: ex}).Fix(context.Background(), in)
			}
		})
	}
}
