package forge

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The conclusions of a finished check.
const (
	ConclusionSuccess   = "success"
	ConclusionFailure   = "failure"
	ConclusionNeutral   = "neutral"
	ConclusionCancelled = "cancelled"
)

// The levels of an annotation, GitHub's names.
const (
	LevelNotice  = "notice"
	LevelWarning = "warning"
	LevelFailure = "failure"
)

// DefaultCheckName names salve's check run and commit status.
const DefaultCheckName = "salve"

// MaxAnnotationsPerRequest is GitHub's limit of annotations in one create
// or update of a check run; more go in further updates, which append.
const MaxAnnotationsPerRequest = 50

// MaxAnnotations bounds the annotations of one check run (GitHub keeps
// every batch; a log of thousands of errors is summarised, not annotated).
const MaxAnnotations = 1000

// GitHub's documented limits on a check run's output.
const (
	maxSummary         = 65535
	maxCheckTitle      = 1000
	maxAnnotationMsg   = 64 << 10
	maxAnnotationTitle = 255
	maxStatusDesc      = 255
)

// Annotation marks lines of a file in a check run.
type Annotation struct {
	// Path is the file, relative to the repository root.
	Path string
	// StartLine and EndLine are 1-based and inclusive; EndLine 0 means
	// StartLine.
	StartLine, EndLine int
	// Level is LevelNotice, LevelWarning or LevelFailure (the default).
	Level string
	// Title is a short heading; Message the text.
	Title, Message string
}

// CheckRequest reports salve's verdict on a commit. On GitHub it is a check
// run (POST /repos/{o}/{r}/check-runs, then PATCH …/check-runs/{id}), on
// GitLab a commit status (POST /projects/:id/statuses/:sha).
//
// A request with no Conclusion opens the check in progress (GitHub
// "in_progress", GitLab "running") and returns its ID; a later request
// with that ID and a Conclusion completes it. A request with a
// Conclusion and no ID does both in one call.
type CheckRequest struct {
	// SHA is the full commit id the check is about.
	SHA string
	// Name names the check; empty means DefaultCheckName.
	Name string
	// ID continues the check an earlier call returned (GitHub); 0 opens
	// a new one.
	ID int64
	// Conclusion is one of the Conclusion constants, or empty for a check
	// still in progress. GitLab has no neutral state: neutral becomes
	// "skipped", cancelled "canceled".
	Conclusion string
	// Title is the check's one-line headline; Summary its Markdown body
	// (GitHub), of which GitLab shows the title alone as description.
	Title, Summary string
	// DetailsURL links the run's record (GitHub details_url, GitLab
	// target_url).
	DetailsURL string
	// Ref is the branch the commit was built on (GitLab, optional).
	Ref string
	// Annotations mark the lines of the failing build's reports (GitHub
	// only), sent MaxAnnotationsPerRequest at a time.
	Annotations []Annotation
}

// CheckRun is a check as the forge recorded it.
type CheckRun struct {
	// ID identifies the check run (GitHub) or commit status (GitLab).
	ID int64 `json:"id"`
	// URL is its web page, when the forge gives one.
	URL string `json:"url,omitempty"`
	// Annotations is how many annotations were sent; Dropped how many
	// were left out (no path or line, or beyond MaxAnnotations).
	Annotations int `json:"annotations"`
	Dropped     int `json:"dropped,omitempty"`
}

func checkConclusion(c string) error {
	switch c {
	case "", ConclusionSuccess, ConclusionFailure, ConclusionNeutral, ConclusionCancelled:
		return nil
	}
	return fmt.Errorf("forge: check conclusion %q is not success, failure, neutral or cancelled", c)
}

func (c CheckRequest) name() string {
	if c.Name == "" {
		return DefaultCheckName
	}
	return c.Name
}

// capText cuts s to at most n bytes on a rune boundary, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "\n…[cut]"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

type ghAnnotation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Level     string `json:"annotation_level"`
	Message   string `json:"message"`
	Title     string `json:"title,omitempty"`
}

// ghAnnotations converts annotations to GitHub's shape, leaving out those
// with no path or line and those beyond MaxAnnotations.
func ghAnnotations(in []Annotation) (out []ghAnnotation, dropped int) {
	for _, a := range in {
		path := strings.TrimPrefix(strings.ReplaceAll(a.Path, "\\", "/"), "./")
		if path == "" || a.StartLine < 1 || len(out) == MaxAnnotations {
			dropped++
			continue
		}
		end := a.EndLine
		if end < a.StartLine {
			end = a.StartLine
		}
		level := a.Level
		if level != LevelNotice && level != LevelWarning {
			level = LevelFailure
		}
		msg := a.Message
		if strings.TrimSpace(msg) == "" {
			msg = a.Title
		}
		if strings.TrimSpace(msg) == "" {
			msg = "error"
		}
		out = append(out, ghAnnotation{Path: path, StartLine: a.StartLine, EndLine: end, Level: level,
			Message: capText(msg, maxAnnotationMsg), Title: capText(a.Title, maxAnnotationTitle)})
	}
	return out, dropped
}

// Check opens, annotates and completes a check run on GitHub.
func (g *GitHub) Check(ctx context.Context, c CheckRequest) (CheckRun, error) {
	if !isHexSHA(c.SHA) {
		return CheckRun{}, fmt.Errorf("forge: check: %q is not a full commit id", c.SHA)
	}
	if err := checkConclusion(c.Conclusion); err != nil {
		return CheckRun{}, err
	}
	title := capText(firstNonBlank(c.Title, c.name()), maxCheckTitle)
	output := func(batch []ghAnnotation) map[string]any {
		o := map[string]any{"title": title, "summary": capText(firstNonBlank(c.Summary, title), maxSummary)}
		if len(batch) > 0 {
			o["annotations"] = batch
		}
		return o
	}
	var run struct {
		ID      int64  `json:"id"`
		HTMLURL string `json:"html_url"`
	}
	run.ID = c.ID
	if run.ID == 0 {
		body := map[string]any{"name": c.name(), "head_sha": c.SHA, "status": "in_progress", "output": output(nil)}
		if c.DetailsURL != "" {
			body["details_url"] = c.DetailsURL
		}
		if _, err := g.call(ctx, http.MethodPost, g.path("check-runs"), nil, body, &run); err != nil {
			return CheckRun{}, err
		}
		if run.ID <= 0 {
			return CheckRun{}, fmt.Errorf("forge: %w: the check run has no id", ErrAPI)
		}
	}
	out := CheckRun{ID: run.ID, URL: run.HTMLURL}
	if c.Conclusion == "" {
		return out, nil
	}
	anns, dropped := ghAnnotations(c.Annotations)
	out.Dropped = dropped
	path := g.path("check-runs", strconv.FormatInt(run.ID, 10))
	for {
		n := min(len(anns), MaxAnnotationsPerRequest)
		batch, rest := anns[:n], anns[n:]
		body := map[string]any{"output": output(batch)}
		if len(rest) == 0 {
			body["status"], body["conclusion"] = "completed", c.Conclusion
			body["completed_at"] = g.now().UTC().Format(time.RFC3339)
		}
		if _, err := g.call(ctx, http.MethodPatch, path, nil, body, &run); err != nil {
			return out, err
		}
		out.Annotations += len(batch)
		if run.HTMLURL != "" {
			out.URL = run.HTMLURL
		}
		if anns = rest; len(anns) == 0 {
			return out, nil
		}
	}
}

func firstNonBlank(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// glState maps a conclusion to GitLab's commit status state.
var glState = map[string]string{
	"":                  "running",
	ConclusionSuccess:   "success",
	ConclusionFailure:   "failed",
	ConclusionNeutral:   "skipped",
	ConclusionCancelled: "canceled",
}

// Check sets a commit status on GitLab: running, then the conclusion's
// state. GitLab statuses carry no annotations (the Code Quality report
// does that job); Dropped counts them.
func (gl *GitLab) Check(ctx context.Context, c CheckRequest) (CheckRun, error) {
	if !isHexSHA(c.SHA) {
		return CheckRun{}, fmt.Errorf("forge: check: %q is not a full commit id", c.SHA)
	}
	if err := checkConclusion(c.Conclusion); err != nil {
		return CheckRun{}, err
	}
	post := func(state string) (CheckRun, error) {
		body := map[string]any{"state": state, "name": c.name(),
			"description": capText(oneLine(firstNonBlank(c.Title, c.name()), maxStatusDesc*4), maxStatusDesc)}
		if c.DetailsURL != "" {
			body["target_url"] = c.DetailsURL
		}
		if c.Ref != "" {
			body["ref"] = c.Ref
		}
		var st struct {
			ID        int64  `json:"id"`
			TargetURL string `json:"target_url"`
		}
		if _, err := gl.call(ctx, http.MethodPost, gl.path("statuses", c.SHA), nil, body, &st); err != nil {
			return CheckRun{}, err
		}
		return CheckRun{ID: st.ID, URL: st.TargetURL, Dropped: len(c.Annotations)}, nil
	}
	if c.ID == 0 || c.Conclusion == "" {
		run, err := post(glState[""])
		if err != nil || c.Conclusion == "" {
			return run, err
		}
	}
	return post(glState[c.Conclusion])
}
