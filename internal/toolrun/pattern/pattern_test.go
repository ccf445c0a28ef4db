package pattern_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// executorNames are those of toolrun's executor table (a test there checks
// they agree).
var executorNames = []string{"toolrun.aider_edit", "MINI_PIPE_executor.execute_aider_refactor", "MINI_PIPE_executor.execute_aider_edit"}

func TestLoadIndexValid(t *testing.T) {
	ix, err := pattern.Load("testdata/valid.yaml", executorNames)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.IDs(); !reflect.DeepEqual(got, []string{"aider_refactor", "docs_only"}) {
		t.Errorf("ids %v", got)
	}
	p, err := ix.Get("aider_refactor")
	if err != nil {
		t.Fatal(err)
	}
	want := pattern.Guardrails{AllowedTools: []string{"aider"}, Include: []string{"**/*.py"}, Exclude: []string{"**/__pycache__/**", "**/venv/**"}}
	if !reflect.DeepEqual(p.Guardrails, want) || p.Line != 1 || p.Category != "code_modification" ||
		p.SpecFile != filepath.Join("testdata", "patterns/aider_refactor.spec.yaml") {
		t.Errorf("pattern %+v", p)
	}
	if _, err := ix.Get("docs_only"); !errors.Is(err, pattern.ErrDisabled) {
		t.Errorf("disabled pattern: %v", err)
	}
	if _, err := ix.Get("nope"); !errors.Is(err, pattern.ErrUnknown) {
		t.Errorf("unknown pattern: %v", err)
	}
}

// TestLoadIndexErrors checks the problems reported for broken indexes
// against golden files; go test -update rewrites them.
func TestLoadIndexErrors(t *testing.T) {
	for _, name := range []string{"errors", "syntax", "empty", "list"} {
		t.Run(name, func(t *testing.T) {
			path := "testdata/" + name + ".yaml"
			_, err := pattern.Load(path, executorNames)
			var ie *pattern.IndexError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want *IndexError", err)
			}
			for _, p := range ie.Problems {
				if p.Line < 1 {
					t.Errorf("problem without a line: %+v", p)
				}
			}
			got := err.Error() + "\n"
			golden := "testdata/" + name + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("problems differ from %s:\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
	if _, err := pattern.Load("testdata/none.yaml", executorNames); err == nil {
		t.Error("missing index loaded")
	}
}

func TestGuardrails(t *testing.T) {
	g := pattern.Guardrails{AllowedTools: []string{"aider"}, Include: []string{"**/*.py"}, Exclude: []string{"**/venv/**"}}
	for _, tc := range []struct {
		tool  string
		scope []string
		want  string
	}{
		{"aider", []string{"a.py", "src/deep/b.py"}, ""},
		{"aider", nil, ""},
		{"codex", []string{"a.py"}, `tool "codex" is not in allowed_tools`},
		{"aider", []string{"a.py", "README.md"}, `file "README.md" is outside path_scope`},
		{"aider", []string{"venv/lib/x.py"}, `file "venv/lib/x.py" is outside path_scope`},
	} {
		got := g.Check(tc.tool, tc.scope)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("Check(%s, %v) = %q, want %q", tc.tool, tc.scope, got, tc.want)
		}
	}
	if (pattern.Guardrails{}).Check("aider", nil) == "" {
		t.Error("empty allowed_tools allowed a tool")
	}
	if !(pattern.Guardrails{}).PathAllowed("anything") {
		t.Error("empty path_scope refused a path")
	}
}

func FuzzParseIndex(f *testing.F) {
	for _, name := range []string{"valid", "errors", "syntax", "list"} {
		b, err := os.ReadFile("testdata/" + name + ".yaml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("a: {enabled: true, spec_path: x, executor: y, guardrails: {path_scope: {include: ['**']}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := pattern.Parse(data, "testdata/fuzz.yaml", executorNames)
		if err == nil {
			if ix == nil {
				t.Fatal("nil index without error")
			}
			for _, id := range ix.IDs() {
				p := ix.Patterns[id]
				if p.Executor == "" || p.SpecPath == "" {
					t.Fatalf("valid pattern %s lacks executor or spec: %+v", id, p)
				}
			}
			return
		}
		var ie *pattern.IndexError
		if !errors.As(err, &ie) || len(ie.Problems) == 0 {
			t.Fatalf("error %v is not an IndexError with problems", err)
		}
	})
}
