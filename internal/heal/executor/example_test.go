package executor_test

import (
	"fmt"
	"path/filepath"

	"github.com/salve-dev/salve/internal/heal/executor"
)

func ExampleDetect() {
	env := executor.ResolveEnv{HasTool: func(name string) bool { return name == "pytest" }}
	for _, project := range []string{"go-pass", "node-yarn", "python-req", "mixed-root"} {
		plan, err := executor.Detect(filepath.Join("testdata", "projects", project), env)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s: %s\n", plan.ProjectType, plan.Command)
	}
	// Output:
	// go: go build ./... && go vet ./... && go test ./...
	// node: yarn run build && yarn test
	// python: pytest
	// go: go build ./... && go vet ./... && go test ./...
}

func ExampleExcerpt() {
	e := executor.NewExcerpt(2, 2, 0)
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(e, "line %d\n", i)
	}
	fmt.Print(e.String())
	// Output:
	// line 1
	// line 2
	// ... [2 lines omitted] ...
	// line 5
	// line 6
}

func ExampleParseProbe() {
	out := "@@salve-tool make\n@@salve-tool gcc\n@@salve-version gcc gcc (Debian 12.2.0-14) 12.2.0\n"
	tools, versions := executor.ParseProbe([]byte(out))
	fmt.Println(tools)
	fmt.Println(versions["gcc"])
	// Output:
	// [gcc make]
	// gcc (Debian 12.2.0-14) 12.2.0
}
