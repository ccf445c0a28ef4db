package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Review is a pull request review to post: a body and comments on lines,
// as a plain comment (it neither approves nor requests changes).
type Review struct {
	// CommitID is the head commit the comments' lines are numbered in;
	// empty means the pull request's current head.
	CommitID string
	// Body is the review's Markdown text.
	Body string
	// Comments are the line comments (suggestions).
	Comments []ReviewComment
}

// maxPullFilePages bounds the pages of GET …/pulls/{n}/files read (100
// files each; GitHub lists at most 3000 files).
const maxPullFilePages = 30

// Pull returns pull request number, with its head commit.
func (g *GitHub) Pull(ctx context.Context, number int) (PullRequest, error) {
	if number <= 0 {
		return PullRequest{}, fmt.Errorf("forge: pull request number %d", number)
	}
	var p ghPull
	if _, err := g.call(ctx, http.MethodGet, g.path("pulls", strconv.Itoa(number)), nil, nil, &p); err != nil {
		return PullRequest{}, err
	}
	return p.pr(false), nil
}

// PullFiles lists the files pull request number changes, with their
// patches (GitHub leaves out the patch of a file too large to show).
func (g *GitHub) PullFiles(ctx context.Context, number int) ([]PullFile, error) {
	if number <= 0 {
		return nil, fmt.Errorf("forge: pull request number %d", number)
	}
	var out []PullFile
	for page := 1; page <= maxPullFilePages; page++ {
		var list []PullFile
		q := url.Values{"per_page": {"100"}, "page": {strconv.Itoa(page)}}
		if _, err := g.call(ctx, http.MethodGet, g.path("pulls", strconv.Itoa(number), "files"), q, nil, &list); err != nil {
			return nil, err
		}
		out = append(out, list...)
		if len(list) < 100 {
			break
		}
	}
	return out, nil
}

// Review posts r on pull request number as a COMMENT review (POST
// /repos/{o}/{r}/pulls/{n}/reviews) and returns the review's id and page.
func (g *GitHub) Review(ctx context.Context, number int, r Review) (id int64, url string, err error) {
	if number <= 0 {
		return 0, "", fmt.Errorf("forge: pull request number %d", number)
	}
	if r.Body == "" && len(r.Comments) == 0 {
		return 0, "", fmt.Errorf("forge: an empty review")
	}
	body := map[string]any{"event": "COMMENT", "body": r.Body}
	if r.CommitID != "" {
		if !isHexSHA(r.CommitID) {
			return 0, "", fmt.Errorf("forge: review commit %q is not a full commit id", r.CommitID)
		}
		body["commit_id"] = r.CommitID
	}
	if len(r.Comments) > 0 {
		body["comments"] = r.Comments
	}
	var out struct {
		ID      int64  `json:"id"`
		HTMLURL string `json:"html_url"`
	}
	if _, err := g.call(ctx, http.MethodPost, g.path("pulls", strconv.Itoa(number), "reviews"), nil, body, &out); err != nil {
		return 0, "", err
	}
	return out.ID, out.HTMLURL, nil
}
