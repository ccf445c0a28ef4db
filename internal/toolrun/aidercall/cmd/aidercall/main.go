// Command aidercall runs the aidercall analyzer on its own, or as a vet
// tool:
//
//	go build -o /tmp/aidercall ./internal/toolrun/aidercall/cmd/aidercall
//	go vet -vettool=/tmp/aidercall ./...
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/salve-dev/salve/internal/toolrun/aidercall"
)

func main() { singlechecker.Main(aidercall.Analyzer) }
