package config_test

import (
	"fmt"

	"github.com/salve-dev/salve/internal/agent/config"
)

func ExampleParseDuration() {
	for _, s := range []string{"1500", "90s", "1.5m", "2h"} {
		d, _ := config.ParseDuration(s)
		fmt.Println(s, d)
	}
	// Output:
	// 1500 1.5s
	// 90s 1m30s
	// 1.5m 1m30s
	// 2h 2h0m0s
}

func ExampleSplitFrontmatter() {
	header, body, ok := config.SplitFrontmatter("#!/usr/bin/env ai-agent\n---\nmaxTurns: 3\n---\nYou are terse.\n")
	fmt.Printf("%v %q %q\n", ok, header, body)
	// Output:
	// true "maxTurns: 3" "You are terse.\n"
}
