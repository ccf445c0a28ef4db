package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// SkipLabel on a pull or merge request asks salve not to heal the failing
// builds that belong to it (docs/service.md, "What a webhook does not
// heal").
const SkipLabel = "salve:skip"

// maxLabels bounds the labels read from one request: GitHub allows 100
// per issue, and a page of 100 is what salve asks for.
const maxLabels = 100

// Labeler reads the labels of a pull or merge request. [GitHub] and
// [GitLab] implement it.
type Labeler interface {
	// Labels returns the names of the labels on request number.
	Labels(ctx context.Context, number int) ([]string, error)
}

var (
	_ Labeler = (*GitHub)(nil)
	_ Labeler = (*GitLab)(nil)
)

// Labels returns the labels of pull request number
// (GET /repos/{owner}/{repo}/issues/{number}/labels: a pull request is an
// issue).
func (g *GitHub) Labels(ctx context.Context, number int) ([]string, error) {
	if number <= 0 {
		return nil, fmt.Errorf("forge: pull request number %d", number)
	}
	var out []struct {
		Name string `json:"name"`
	}
	q := url.Values{"per_page": {strconv.Itoa(maxLabels)}}
	if _, err := g.call(ctx, http.MethodGet, g.path("issues", strconv.Itoa(number), "labels"), q, nil, &out); err != nil {
		return nil, err
	}
	names := make([]string, 0, min(len(out), maxLabels))
	for _, l := range out[:min(len(out), maxLabels)] {
		names = append(names, l.Name)
	}
	return names, nil
}

// Labels returns the labels of merge request iid
// (GET /projects/:id/merge_requests/:iid, whose labels are names).
func (gl *GitLab) Labels(ctx context.Context, iid int) ([]string, error) {
	if iid <= 0 {
		return nil, fmt.Errorf("forge: merge request number %d", iid)
	}
	var out struct {
		Labels []string `json:"labels"`
	}
	if _, err := gl.call(ctx, http.MethodGet, gl.path("merge_requests", strconv.Itoa(iid)), nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Labels[:min(len(out.Labels), maxLabels)], nil
}

// HasLabel reports whether labels holds name, compared without case as
// both forges do.
func HasLabel(labels []string, name string) bool {
	for _, l := range labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}
