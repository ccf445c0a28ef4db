// Package clean uses the adapter as the contract says.
package clean

import (
	"context"

	"github.com/salve-dev/salve/toolrun"
)

func Edit(ctx context.Context) bool { return toolrun.RunAider(ctx).ExitCode == 0 }
