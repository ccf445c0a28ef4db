package pattern_test

import (
	"fmt"

	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// ExampleParse validates an index whose entry has a typo and names an
// executor that does not exist; each problem names its line.
func ExampleParse() {
	index := []byte(`aider_refactor:
  enabled: true
  spec_path: patterns/aider_refactor.spec.yaml
  executor: toolrun.aider_edit
  guardrails:
    allowed_tools: [aider]
    path_scope:
      include: ["**/*.py"]
docs:
  enabled: true
  spec_path: patterns/aider_refactor.spec.yaml
  executor: nobody
  categroy: docs
`)
	_, err := pattern.Parse(index, "testdata/PATTERN_INDEX.yaml", []string{"toolrun.aider_edit"})
	fmt.Println(err)

	ix, _ := pattern.Parse(index[:194], "testdata/PATTERN_INDEX.yaml", []string{"toolrun.aider_edit"})
	p, _ := ix.Get("aider_refactor")
	fmt.Println(p.Guardrails.Check("aider", []string{"src/app.py"}) == "")
	fmt.Println(p.Guardrails.Check("aider", []string{"README.md"}))
	// Output:
	// testdata/PATTERN_INDEX.yaml:12:13: pattern docs: unknown executor "nobody" (known: toolrun.aider_edit)
	// testdata/PATTERN_INDEX.yaml:13:3: pattern docs: unknown key "categroy"
	// true
	// file "README.md" is outside path_scope (include [**/*.py], exclude [])
}
