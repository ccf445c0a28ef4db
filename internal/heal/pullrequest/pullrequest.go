// Package pullrequest opens the pull or merge request of a healed branch:
// one flow and one body (the fix lines, the bug table, the diffstat and
// the costs of package internal/heal/results) for salve heal --pr and for
// the queue worker alike.
package pullrequest

import (
	"context"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/results"
)

// Open opens the request from head into base on f, or updates the one
// already open, with res's title and body; a heal that stayed red opens a
// draft. runURL, when set, links the run's record.
func Open(ctx context.Context, f forge.Forge, res *results.Results, head, base, runURL string) (forge.PullRequest, error) {
	title, body := results.PullRequestText(res, runURL)
	return f.OpenOrUpdate(ctx, forge.Request{Head: head, Base: base, Title: title, Body: body, Draft: res.Outcome != results.OutcomeGreen})
}
