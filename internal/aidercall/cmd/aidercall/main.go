// Command aidercall runs the aidercall analyzer on its own, or as a vet
// tool:
//
//	go build -o /tmp/aidercall ./internal/aidercall/cmd/aidercall
//	go vet -vettool=/tmp/aidercall ./...
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/salve-dev/salve/internal/aidercall"
)

func main() { singlechecker.Main(aidercall.Analyzer) }
