package tiktoken_test

import (
	"fmt"

	"github.com/salve-dev/salve/internal/llm/tokens/tiktoken"
)

func ExampleNew() {
	for _, c := range []struct{ tokenizer, model string }{
		{"", "gpt-4o-mini"},
		{"", "claude-sonnet-4"},
		{"cl100k_base", "qwen3"},
	} {
		counter, err := tiktoken.New(c.tokenizer, c.model)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(c.model, counter.Name(), counter.Count("hello world"))
	}
	// Output:
	// gpt-4o-mini tiktoken:o200k_base 2
	// claude-sonnet-4 approx 3
	// qwen3 tiktoken:cl100k_base 2
}
