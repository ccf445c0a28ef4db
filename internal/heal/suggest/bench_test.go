package suggest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
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
			ar, err := txtar.ParseFile(c)
			if err != nil {
				b.Fatal(err)
			}
			ws := b.TempDir()
			ex := &replay{}
			for _, f := range ar.Files {
				if f.Name == "rerun.log" {
					ex.log = string(f.Data)
					continue
				}
				p := filepath.Join(ws, filepath.FromSlash(f.Name))
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			reports := parseReports(&testing.T{}, string(ar.Comment))
			content, _ := os.ReadFile(filepath.Join(ws, filepath.FromSlash(reports[0].FilePath)))
			in := heal.FixInput{Workspace: ws, Path: reports[0].FilePath, Content: string(content),
				Request: contract.FixRequest{BugReport: reports[0], Related: reports[1:]}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// A new Fixer each time: no cached re-run.
				_, _ = (&Fixer{Executor: ex}).Fix(context.Background(), in)
			}
		})
	}
}
