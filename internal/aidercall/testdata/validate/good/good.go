// Package good goes through the adapter.
package good

import (
	"context"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

// Edit runs aider through the adapter.
func Edit(ctx context.Context, req contract.ToolRunRequestV1) bool {
	return toolrun.RunAider(ctx, req).Succeeded()
}
