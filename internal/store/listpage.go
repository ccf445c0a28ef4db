package store

import (
	"context"
	"fmt"
	"strings"
)

// RunRow is one line of a runs listing: the run without its summary, plus
// the few summary fields a listing shows, read inside SQLite so a page of
// runs never decodes whole summaries.
type RunRow struct {
	Run
	// Repo and Branch come from the summary's repo and branch fields
	// (heals), or workspace_path (execs); empty when absent.
	Repo   string `json:"repo,omitempty"`
	Branch string `json:"branch,omitempty"`
	// CostUSD is the summary's llm.cost_usd, zero when absent.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// PageQuery selects a page of runs for [Store.ListPage].
type PageQuery struct {
	// Kind, Status and Repo, when set, must match exactly (Repo against
	// the summary's repo or workspace_path).
	Kind, Status, Repo string
	// Offset skips that many runs; Limit caps the page (1 to 500, default
	// 50).
	Offset, Limit int
}

// ListPage returns one page of runs, newest first, and how many runs match
// in all.
func (s *Store) ListPage(ctx context.Context, q PageQuery) ([]RunRow, int, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	offset := max(q.Offset, 0)
	const repoExpr = "COALESCE(json_extract(summary, '$.repo'), json_extract(summary, '$.workspace_path'), '')"
	var where []string
	var args []any
	for _, c := range []struct{ col, val string }{{"kind", q.Kind}, {"status", q.Status}, {repoExpr, q.Repo}} {
		if c.val != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.val)
		}
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.q.QueryRowContext(ctx, "SELECT COUNT(*) FROM runs"+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: count runs: %w", err)
	}
	query := `SELECT run_id, kind, status, COALESCE(parent_id, ''), title, started_at, completed_at, ` + repoExpr + `,
		COALESCE(json_extract(summary, '$.branch'), ''), COALESCE(json_extract(summary, '$.llm.cost_usd'), 0)
		FROM runs` + cond + ` ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?`
	rows, err := s.q.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("store: list runs: %w", err)
	}
	defer rows.Close()
	var out []RunRow
	for rows.Next() {
		var r RunRow
		var repo, branch any
		var cost any
		if err := rows.Scan(&r.RunID, &r.Kind, &r.Status, &r.ParentID, &r.Title, &r.StartedAt, &r.CompletedAt, &repo, &branch, &cost); err != nil {
			return nil, 0, fmt.Errorf("store: list runs: %w", err)
		}
		r.Repo, r.Branch, r.CostUSD = asString(repo), asString(branch), asFloat(cost)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("store: list runs: %w", err)
	}
	return out, total, nil
}

// Repos lists the distinct repositories of the recorded runs, for a filter.
func (s *Store) Repos(ctx context.Context, limit int) ([]string, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT DISTINCT r FROM (SELECT COALESCE(json_extract(summary, '$.repo'), json_extract(summary, '$.workspace_path')) AS r FROM runs) WHERE r IS NOT NULL AND r != '' ORDER BY r LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list repositories: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}
