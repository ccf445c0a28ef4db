package forge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

func annotations(n int) []forge.Annotation {
	out := make([]forge.Annotation, n)
	for i := range out {
		out[i] = forge.Annotation{Path: "./pkg/a.go", StartLine: i + 1, Level: forge.LevelFailure, Title: "TYPE_ERROR", Message: fmt.Sprintf("error %d", i)}
	}
	return out
}

// TestGitHubCheckRun: a check run is created in progress, then completed;
// 120 annotations go 50, 50 and 20 to a request (GitHub's limit), the
// conclusion with the last batch; annotations without a path or line are
// dropped, counted.
func TestGitHubCheckRun(t *testing.T) {
	k := kits(t, token)[0]
	ctx := context.Background()
	anns := append(annotations(120), forge.Annotation{Message: "no place"}, forge.Annotation{Path: "a.go"})
	run, err := k.f.Check(ctx, forge.CheckRequest{SHA: sha, Conclusion: forge.ConclusionFailure, Title: "salve could not heal the build",
		Summary: "- TYPE_ERROR error in a.go line 1", DetailsURL: "https://ci.example/run/1", Annotations: anns})
	if err != nil {
		t.Fatal(err)
	}
	if run.ID != 1 || run.Annotations != 120 || run.Dropped != 2 || run.URL == "" {
		t.Errorf("run %+v", run)
	}
	runs := k.srv.CheckRuns(k.repo)
	if len(runs) != 1 {
		t.Fatalf("%d check runs", len(runs))
	}
	got := runs[0]
	if got.HeadSHA != sha || got.Name != forge.DefaultCheckName || got.Status != "completed" || got.Conclusion != "failure" ||
		len(got.Annotations) != 120 || got.Requests != 4 || got.DetailsURL != "https://ci.example/run/1" ||
		got.Annotations[0].Path != "pkg/a.go" || got.Annotations[0].EndLine != 1 || got.Annotations[0].Level != "failure" {
		t.Errorf("server holds %+v", got)
	}
	var sizes []int
	for _, c := range k.srv.Calls() {
		var body struct {
			Status string
			Output struct{ Annotations []json.RawMessage }
		}
		_ = json.Unmarshal(c.Body, &body)
		sizes = append(sizes, len(body.Output.Annotations))
		if c.Method == "POST" && body.Status != "in_progress" {
			t.Errorf("created %q, want in_progress", body.Status)
		}
	}
	if fmt.Sprint(sizes) != "[0 50 50 20]" {
		t.Errorf("annotations per request %v, want [0 50 50 20]", sizes)
	}
}

// TestCheckInTwoSteps: opened in progress, completed later by its id.
func TestCheckInTwoSteps(t *testing.T) {
	for _, k := range kits(t, token) {
		t.Run(k.name, func(t *testing.T) {
			ctx := context.Background()
			run, err := k.f.Check(ctx, forge.CheckRequest{SHA: sha, Title: "salve is healing the build"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := k.f.Check(ctx, forge.CheckRequest{SHA: sha, ID: run.ID, Conclusion: forge.ConclusionNeutral, Title: "flaky: the failing tests passed on a re-run"}); err != nil {
				t.Fatal(err)
			}
			if k.name == "github" {
				runs := k.srv.CheckRuns(k.repo)
				if len(runs) != 1 || runs[0].Conclusion != "neutral" || runs[0].Title != "flaky: the failing tests passed on a re-run" {
					t.Errorf("runs %+v", runs)
				}
				return
			}
			var states []string
			for _, s := range k.srv.Statuses(k.repo) {
				if s.SHA != sha || s.Name != "salve" {
					t.Errorf("status %+v", s)
				}
				states = append(states, s.State)
			}
			if strings.Join(states, ",") != "running,skipped" {
				t.Errorf("states %v, want running,skipped", states)
			}
		})
	}
}

func TestGitLabStatus(t *testing.T) {
	k := kits(t, token)[1]
	_, err := k.f.Check(context.Background(), forge.CheckRequest{SHA: sha, Conclusion: forge.ConclusionFailure, Ref: "main",
		Title: strings.Repeat("long title ", 50), DetailsURL: "https://ci.example/job/2", Annotations: annotations(3)})
	if err != nil {
		t.Fatal(err)
	}
	st := k.srv.Statuses(k.repo)
	if len(st) != 2 || st[0].State != "running" || st[1].State != "failed" || st[1].TargetURL != "https://ci.example/job/2" ||
		st[1].Ref != "main" || len(st[1].Description) > 255 {
		t.Errorf("statuses %+v", st)
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, k := range kits(t, token) {
		for _, c := range []forge.CheckRequest{{SHA: "abc"}, {SHA: sha, Conclusion: "green"}, {SHA: strings.ToUpper(sha)}} {
			if _, err := k.f.Check(context.Background(), c); err == nil {
				t.Errorf("%s accepted %+v", k.name, c)
			}
		}
		if n := len(k.srv.Calls()); n != 0 {
			t.Errorf("%s: %d calls for refused checks", k.name, n)
		}
	}
	// The server's own rules: too many annotations in one request.
	srv := forgetest.New(token)
	defer srv.Close()
	srv.AddRepo("github", "acme/app")
	srv.Fail("POST /repos/acme/app/check-runs", forgetest.Fault{Status: 422, Body: `{"message":"Validation Failed","errors":[{"message":"only 50 annotations are allowed per request"}]}`})
	g, _ := forge.NewGitHub(forge.GitHubConfig{API: srv.GitHubAPI(), Repo: "acme/app", Token: token})
	if _, err := g.Check(context.Background(), forge.CheckRequest{SHA: sha, Conclusion: "success"}); err == nil || !strings.Contains(err.Error(), "50 annotations") {
		t.Errorf("err = %v", err)
	}
}
