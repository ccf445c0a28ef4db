package suggest

import (
	"path"
	"path/filepath"

	"github.com/salve-dev/salve/internal/heal/logparse"
)

// goVetRerun is the structured re-run of go vet for a package folder:
// `go vet -json .`, whose diagnostics carry the analyzers' suggested
// fixes as text edits (printf's missing "%s" format, assign's
// self-assignment, unreachable code, ...). Its diagnostics without a fix
// also serve withLineDiagnostics.
func goVetRerun(ws, dir string) rerun {
	root := filepath.Join(ws, filepath.FromSlash(dir))
	return rerun{key: "govet:" + dir, cmd: cdCmd(dir, "go vet -json ."),
		parse: func(log string) ([]logparse.Suggestion, []logparse.MissingSymbol) {
			sugs, _ := logparse.ParseGoVetJSON(log, root)
			for i := range sugs {
				sugs[i].File = path.Join(dir, sugs[i].File)
				for j := range sugs[i].Edits {
					sugs[i].Edits[j].File = path.Join(dir, sugs[i].Edits[j].File)
				}
			}
			return sugs, nil
		},
		diags: func(log string) []logparse.Diagnostic {
			_, ds := logparse.ParseGoVetJSON(log, root)
			for i := range ds {
				ds[i].File = path.Join(dir, ds[i].File)
			}
			return ds
		}}
}
