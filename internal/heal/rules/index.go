package rules

import (
	_ "embed" // the name indexes below
	"strings"
	"sync"
)

// The name indexes of the toolchains, generated from the real tools by
// scripts/heal/gen-indexes.sh and committed: they are data, read once.
var (
	//go:embed data/python_stdlib.txt
	pythonStdlibTxt string
	//go:embed data/jdk_classes.txt
	jdkClassesTxt string
	//go:embed data/node_builtins.txt
	nodeBuiltinsTxt string
)

var (
	indexOnce    sync.Once
	pythonStdlib map[string]bool
	jdkClasses   map[string][]string
	nodeBuiltins map[string]bool
)

func loadIndexes() {
	indexOnce.Do(func() {
		pythonStdlib = set(pythonStdlibTxt)
		nodeBuiltins = set(nodeBuiltinsTxt)
		jdkClasses = map[string][]string{}
		for _, l := range strings.Split(jdkClassesTxt, "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				jdkClasses[f[0]] = f[1:]
			}
		}
	})
}

func set(txt string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(txt, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			m[l] = true
		}
	}
	return m
}
