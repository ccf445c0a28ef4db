package tokens_test

import (
	"fmt"

	"github.com/salve-dev/salve/internal/llm/tokens"
)

func ExampleApprox() {
	var c tokens.Counter = tokens.Approx{}
	fmt.Println(c.Name(), c.Count("hello world"), c.Count(""))
	// Output:
	// approx 3 0
}
