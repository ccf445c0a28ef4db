package tools_test

import (
	"fmt"
	"strings"

	"github.com/salve-dev/salve/internal/agent/tools"
)

func ExampleTruncate() {
	out, info := tools.Truncate(strings.Repeat("x", 100), 80)
	fmt.Println(info.Truncated, len(out) <= 80)
	fmt.Println(strings.SplitN(out, "\n", 2)[0])
	// Output:
	// true true
	// [TRUNCATED] Original size 100 bytes; truncated to 80 bytes.
}

func ExampleParseArguments() {
	obj, rep, err := tools.ParseArguments("Sure:\n```json\n{\"path\": 'a.txt',}\n```")
	fmt.Println(string(obj), rep.Repaired, err)
	// Output:
	// {"path":"a.txt"} true <nil>
}
