package toolrun_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/toolrun"
)

// BenchmarkRunAider is the adapter's whole cost around a tool that does
// one edit: validation, two snapshots, the process (the fake aider, a
// re-run of this test binary), the diff through git, and the record.
func BenchmarkRunAider(b *testing.B) {
	for _, withStore := range []bool{false, true} {
		b.Run(fmt.Sprintf("store=%v", withStore), func(b *testing.B) {
			root := newWorkTree(b)
			a := newAdapter(b)
			if withStore {
				st, err := store.Open(filepath.Join(b.TempDir(), "runs.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				a.Store = st
			}
			reqs := make([]string, 2)
			for i := range reqs {
				reqs[i] = writeMessage(b, fmt.Sprintf("write src/app.py x = %d", i))
			}
			req := aiderRequest(b, root, []string{"src/app.py"}, "exit 0")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req.Cmd[8] = reqs[i%2]
				out := a.RunAider(context.Background(), req, toolrun.RunOptions{})
				if out.Result.ExitCode != 0 || len(out.Record.Patches) != 1 {
					b.Fatalf("run %d: %+v %+v", i, out.Result, out.Record.Patches)
				}
			}
		})
	}
}
