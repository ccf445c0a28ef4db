package forgetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CheckRun is a GitHub check run held by the server.
type CheckRun struct {
	ID                 int64
	Name, HeadSHA      string
	Status, Conclusion string
	DetailsURL         string
	Title, Summary     string
	Annotations        []Annotation
	// Requests counts the create and update calls that shaped it.
	Requests int
}

// Annotation is one annotation of a check run.
type Annotation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Level     string `json:"annotation_level"`
	Message   string `json:"message"`
	Title     string `json:"title"`
}

// Status is one GitLab commit status post, in order.
type Status struct {
	ID                     int64
	SHA, State, Name, Ref  string
	Description, TargetURL string
}

// Review is a pull request review posted to the server.
type Review struct {
	Number   int
	CommitID string
	Event    string
	Body     string
	Comments []ReviewComment
}

// ReviewComment is one line comment of a review.
type ReviewComment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Side      string `json:"side"`
	StartLine int    `json:"start_line"`
	StartSide string `json:"start_side"`
	Body      string `json:"body"`
}

// CheckRuns returns copies of the check runs of repo ("owner/name").
func (s *Server) CheckRuns(repo string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []CheckRun
	for _, c := range s.checks[repo] {
		cp := *c
		cp.Annotations = append([]Annotation(nil), c.Annotations...)
		out = append(out, cp)
	}
	return out
}

// Statuses returns every commit status posted on project, in order.
func (s *Server) Statuses(project string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Status(nil), s.statuses[project]...)
}

// Reviews returns the reviews posted on repo's pull requests, in order.
func (s *Server) Reviews(repo string) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Review(nil), s.reviews[repo]...)
	for i := range out {
		out[i].Comments = append([]ReviewComment(nil), out[i].Comments...)
	}
	return out
}

// GitHub's documented limits.
const (
	maxAnnotationsPerRequest = 50
	maxSummary               = 65535
)

var checkStatuses = map[string]bool{"queued": true, "in_progress": true, "completed": true}

var checkConclusions = map[string]bool{"action_required": true, "cancelled": true, "failure": true, "neutral": true,
	"success": true, "skipped": true, "stale": true, "timed_out": true}

var annotationLevels = map[string]bool{"notice": true, "warning": true, "failure": true}

func unprocessable(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
		"errors": []map[string]string{{"resource": "CheckRun", "code": "invalid", "message": msg}}, "documentation_url": "https://docs.github.com/rest/checks/runs"})
}

// checkInput is the body of a check run create or update.
type checkInput struct {
	Name        *string `json:"name"`
	HeadSHA     *string `json:"head_sha"`
	Status      *string `json:"status"`
	Conclusion  *string `json:"conclusion"`
	DetailsURL  *string `json:"details_url"`
	CompletedAt *string `json:"completed_at"`
	Output      *struct {
		Title       *string      `json:"title"`
		Summary     *string      `json:"summary"`
		Annotations []Annotation `json:"annotations"`
	} `json:"output"`
}

// validate applies GitHub's rules to a create (c nil) or an update of c.
func (in checkInput) validate(c *CheckRun) string {
	if c == nil && (in.Name == nil || *in.Name == "" || in.HeadSHA == nil || *in.HeadSHA == "") {
		return "name and head_sha are required"
	}
	if in.Status != nil && !checkStatuses[*in.Status] {
		return fmt.Sprintf("status %q is not included in the list", *in.Status)
	}
	if in.Conclusion != nil && !checkConclusions[*in.Conclusion] {
		return fmt.Sprintf("conclusion %q is not included in the list", *in.Conclusion)
	}
	if in.Status != nil && *in.Status == "completed" && in.Conclusion == nil {
		return "conclusion is required when status is completed"
	}
	if in.CompletedAt != nil {
		if _, err := time.Parse(time.RFC3339, *in.CompletedAt); err != nil {
			return "completed_at is not an ISO 8601 timestamp"
		}
	}
	if o := in.Output; o != nil {
		if o.Title == nil || o.Summary == nil || *o.Summary == "" {
			return "output needs a title and a summary"
		}
		if len(*o.Summary) > maxSummary {
			return "output.summary is too long (maximum is 65535 characters)"
		}
		if len(o.Annotations) > maxAnnotationsPerRequest {
			return fmt.Sprintf("only %d annotations are allowed per request", maxAnnotationsPerRequest)
		}
		for _, a := range o.Annotations {
			if a.Path == "" || a.StartLine < 1 || a.EndLine < a.StartLine || a.Message == "" || !annotationLevels[a.Level] {
				return fmt.Sprintf("annotation %+v needs path, start_line <= end_line, annotation_level and message", a)
			}
		}
	}
	return ""
}

func (in checkInput) apply(c *CheckRun) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&c.Name, in.Name)
	set(&c.HeadSHA, in.HeadSHA)
	set(&c.Status, in.Status)
	set(&c.Conclusion, in.Conclusion)
	set(&c.DetailsURL, in.DetailsURL)
	if in.Conclusion != nil && in.Status == nil {
		c.Status = "completed"
	}
	if o := in.Output; o != nil {
		set(&c.Title, o.Title)
		set(&c.Summary, o.Summary)
		c.Annotations = append(c.Annotations, o.Annotations...)
	}
	c.Requests++
}

// githubMore serves check runs, pull request files and reviews; s.mu is
// held.
func (s *Server) githubMore(w http.ResponseWriter, r *http.Request, repo string, parts []string, body []byte) {
	key := "github:" + repo
	checkJSON := func(c *CheckRun) map[string]any {
		return map[string]any{"id": c.ID, "name": c.Name, "head_sha": c.HeadSHA, "status": c.Status, "conclusion": c.Conclusion,
			"html_url": fmt.Sprintf("%s/%s/runs/%d", s.URL, repo, c.ID), "details_url": c.DetailsURL,
			"output": map[string]any{"title": c.Title, "summary": c.Summary, "annotations_count": len(c.Annotations)}}
	}
	switch {
	case r.Method == http.MethodPost && len(parts) == 3 && parts[2] == "check-runs":
		var in checkInput
		if json.Unmarshal(body, &in) != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
			return
		}
		if msg := in.validate(nil); msg != "" {
			unprocessable(w, msg)
			return
		}
		c := &CheckRun{ID: int64(len(s.checks[repo]) + 1), Status: "queued"}
		in.apply(c)
		s.checks[repo] = append(s.checks[repo], c)
		writeJSON(w, http.StatusCreated, checkJSON(c))
	case r.Method == http.MethodPatch && len(parts) == 4 && parts[2] == "check-runs":
		id, _ := strconv.ParseInt(parts[3], 10, 64)
		var c *CheckRun
		for _, x := range s.checks[repo] {
			if x.ID == id {
				c = x
			}
		}
		var in checkInput
		switch {
		case c == nil:
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		case json.Unmarshal(body, &in) != nil:
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		default:
			if msg := in.validate(c); msg != "" {
				unprocessable(w, msg)
				return
			}
			in.apply(c)
			writeJSON(w, http.StatusOK, checkJSON(c))
		}
	case r.Method == http.MethodGet && len(parts) == 5 && parts[4] == "files":
		p := s.find(key, parts[3])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
		page, per = max(page, 1), min(max(per, 1), 100)
		list := []map[string]any{}
		for i := (page - 1) * per; i < len(p.Files) && i < page*per; i++ {
			f := p.Files[i]
			list = append(list, map[string]any{"filename": f.Filename, "status": "modified", "patch": f.Patch})
		}
		writeJSON(w, http.StatusOK, list)
	case r.Method == http.MethodPost && len(parts) == 5 && parts[4] == "reviews":
		p := s.find(key, parts[3])
		if p == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		var in struct {
			CommitID string          `json:"commit_id"`
			Body     string          `json:"body"`
			Event    string          `json:"event"`
			Comments []ReviewComment `json:"comments"`
		}
		if json.Unmarshal(body, &in) != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
			return
		}
		if msg := reviewProblem(p, in.Event, in.Comments); msg != "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity", "errors": []string{msg}})
			return
		}
		rv := Review{Number: p.Number, CommitID: in.CommitID, Event: in.Event, Body: in.Body, Comments: in.Comments}
		s.reviews[repo] = append(s.reviews[repo], rv)
		n := len(s.reviews[repo])
		writeJSON(w, http.StatusOK, map[string]any{"id": n, "state": "COMMENTED", "body": in.Body, "commit_id": in.CommitID,
			"html_url": fmt.Sprintf("%s/%s/pull/%d#pullrequestreview-%d", s.URL, repo, p.Number, n)})
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

// reviewProblem applies GitHub's rules to a review: a known event, and
// every comment on lines of one hunk of the pull request's diff, on the
// side it names (only RIGHT, the head, is modelled).
func reviewProblem(p *PR, event string, comments []ReviewComment) string {
	switch event {
	case "COMMENT", "APPROVE", "REQUEST_CHANGES", "":
	default:
		return fmt.Sprintf("event %q is not one of APPROVE, REQUEST_CHANGES, COMMENT", event)
	}
	if event == "COMMENT" && len(comments) == 0 {
		return "" // a body alone is enough; GitHub checks it is not empty
	}
	for _, c := range comments {
		var patch string
		found := false
		for _, f := range p.Files {
			if f.Filename == c.Path {
				patch, found = f.Patch, true
			}
		}
		start := c.StartLine
		if start == 0 {
			start = c.Line
		}
		switch {
		case c.Body == "":
			return "Body can't be blank"
		case !found:
			return "Path could not be resolved"
		case c.Side != "RIGHT" || (c.StartLine != 0 && c.StartSide != "RIGHT"):
			return "Side is not supported by this test server: use RIGHT"
		case c.StartLine != 0 && c.StartLine >= c.Line:
			return "start_line must precede line"
		}
		hunks := rightHunks(patch)
		h, ok := hunks[c.Line]
		if !ok {
			return "Line could not be resolved"
		}
		for l := start; l <= c.Line; l++ {
			if hl, ok := hunks[l]; !ok || hl != h {
				return "Start line could not be resolved"
			}
		}
	}
	return ""
}

// rightHunks maps each head-side line of a patch to its hunk's index.
func rightHunks(patch string) map[int]int {
	out := map[int]int{}
	hunk, line, in := -1, 0, false
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@") {
			f := strings.Fields(l)
			in = false
			if len(f) >= 3 && strings.HasPrefix(f[2], "+") {
				n, _, _ := strings.Cut(f[2][1:], ",")
				if v, err := strconv.Atoi(n); err == nil {
					hunk, line, in = hunk+1, v, true
				}
			}
			continue
		}
		if !in || l == "" {
			continue
		}
		if l[0] == ' ' || l[0] == '+' {
			out[line] = hunk
			line++
		}
	}
	return out
}

var glStates = map[string]bool{"pending": true, "running": true, "success": true, "failed": true, "canceled": true, "skipped": true}

// gitlabStatus serves POST /projects/:id/statuses/:sha; s.mu is held.
func (s *Server) gitlabStatus(w http.ResponseWriter, project, sha string, body []byte) {
	var in struct {
		State       string `json:"state"`
		Name        string `json:"name"`
		Ref         string `json:"ref"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
	}
	if json.Unmarshal(body, &in) != nil || !glStates[in.State] {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "state does not have a valid value"})
		return
	}
	if in.Name == "" {
		in.Name = "default"
	}
	st := Status{ID: int64(len(s.statuses[project]) + 1), SHA: sha, State: in.State, Name: in.Name, Ref: in.Ref, Description: in.Description, TargetURL: in.TargetURL}
	s.statuses[project] = append(s.statuses[project], st)
	writeJSON(w, http.StatusCreated, map[string]any{"id": st.ID, "sha": sha, "ref": in.Ref, "status": in.State, "name": in.Name,
		"target_url": in.TargetURL, "description": in.Description, "created_at": time.Now().UTC().Format(time.RFC3339)})
}
