package queue_test

import (
	"context"
	"fmt"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
)

func ExampleSet_Acquire() {
	qs, err := queue.New(map[string]int{"io": 2}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := qs.Validate([]queue.Binding{{Owner: "mcpServers.fs", Queue: "net"}}); err != nil {
		fmt.Println(err)
	}
	slot, err := qs.Acquire(context.Background(), "io")
	if err != nil {
		fmt.Println(err)
		return
	}
	var entry contract.AccountingEntry
	slot.Account(&entry)
	slot.Release()
	fmt.Println(qs.Names(), entry.Queue, *entry.QueueWaitMs, *entry.QueueDepth)
	// Output:
	// mcpServers.fs: queue "net" is not defined in queues
	// [default io] io 0 0
}
