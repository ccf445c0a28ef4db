package forge_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/forge/forgetest"
)

// prPatch is the pull request's change to main.go: it added line 4 and
// line 8 (head lines 1-9 are all in one hunk).
const prPatch = `@@ -1,7 +1,9 @@
 package main
 
 import "fmt"
+import "os"
 
 func main() {
 	fmt.Println("hi")
+	fmt.Println(x)
 }`

// fix writes a fix's unified diff of path from its hunks' lines.
func fix(path string, hunks ...string) string {
	return "--- a/" + path + "\n+++ b/" + path + "\n" + strings.Join(hunks, "")
}

func TestSuggestions(t *testing.T) {
	files := []forge.PullFile{{Filename: "main.go", Patch: prPatch}, {Filename: "util.go", Patch: "@@ -10,2 +10,3 @@\n a\n+b\n c"}}
	tests := []struct {
		name    string
		patches []string
		// want is "path:start-line:text" per comment, text with | for
		// line breaks; outside the number of changes left out.
		want    []string
		outside int
	}{
		{"a deleted line", []string{fix("main.go", "@@ -2,5 +2,4 @@\n \n import \"fmt\"\n-import \"os\"\n \n func main() {\n")},
			[]string{"main.go:4-4:"}, 0},
		{"two lines replaced", []string{fix("main.go", "@@ -6,4 +6,4 @@\n func main() {\n-\tfmt.Println(\"hi\")\n-\tfmt.Println(x)\n+\tfmt.Println(\"hi\", x)\n+\t_ = x\n }\n")},
			[]string{"main.go:7-8:\tfmt.Println(\"hi\", x)|\t_ = x"}, 0},
		{"an insertion keeps the line before it", []string{fix("main.go", "@@ -3,2 +3,3 @@\n import \"fmt\"\n+import \"strings\"\n import \"os\"\n")},
			[]string{"main.go:3-3:import \"fmt\"|import \"strings\""}, 0},
		{"an insertion at the top keeps the line after it", []string{fix("main.go", "@@ -1,2 +1,3 @@\n+// Command main.\n package main\n \n")},
			[]string{"main.go:1-1:// Command main.|package main"}, 0},
		{"a file the pull request does not change", []string{fix("other.go", "@@ -1,1 +1,1 @@\n-a\n+b\n")}, nil, 1},
		{"lines outside the hunks", []string{fix("util.go", "@@ -20,1 +20,1 @@\n-x\n+y\n")}, nil, 1},
		{"text the pull request does not have there", []string{fix("main.go", "@@ -4,1 +4,1 @@\n-import \"io\"\n+import \"os\"\n")}, nil, 1},
		{"a file fixed twice", []string{fix("main.go", "@@ -4,1 +4,0 @@\n-import \"os\"\n"), fix("main.go", "@@ -7,1 +7,1 @@\n-\tfmt.Println(x)\n+\tfmt.Println(1)\n")}, nil, 2},
		{"two fixes, one inside and one outside", []string{fix("main.go", "@@ -4,1 +4,0 @@\n-import \"os\"\n"), fix("util.go", "@@ -1,1 +1,1 @@\n-x\n+y\n")},
			[]string{"main.go:4-4:"}, 1},
		{"backticks in the fix", []string{fix("util.go", "@@ -11,1 +11,1 @@\n-b\n+s := \"```\"\n")}, []string{"util.go:11-11:s := \"```\""}, 0},
		{"two runs in one hunk", []string{fix("main.go", "@@ -3,5 +3,5 @@\n-import \"fmt\"\n+import \"log\"\n import \"os\"\n \n func main() {\n-\tfmt.Println(\"hi\")\n+\tlog.Println(\"hi\")\n")},
			[]string{"main.go:3-3:import \"log\"", "main.go:7-7:\tlog.Println(\"hi\")"}, 0},
		{"one line replaced by two", []string{fix("main.go", "@@ -3,2 +3,3 @@\n-import \"fmt\"\n+import \"log\"\n+import \"io\"\n import \"os\"\n")},
			[]string{"main.go:3-3:import \"log\"|import \"io\""}, 0},
		{"not a diff", []string{"hello\nworld\n"}, nil, 0},
		{"a path outside the repository", []string{"--- a/../x\n+++ b/../x\n@@ -1,1 +1,1 @@\n-a\n+b\n"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := forge.Suggestions(tt.patches, files)
			var have []string
			for _, c := range got.Comments {
				start := c.StartLine
				if start == 0 {
					start = c.Line
				}
				if c.Side != "RIGHT" || (c.StartLine != 0 && c.StartSide != "RIGHT") {
					t.Errorf("sides %+v", c)
				}
				_, block, _ := strings.Cut(c.Body, "suggestion\n")
				lines := strings.Split(block, "\n")
				text := strings.Join(lines[:len(lines)-1], "|")
				have = append(have, c.Path+":"+strconv.Itoa(start)+"-"+strconv.Itoa(c.Line)+":"+text)
				if !strings.HasPrefix(c.Body, forge.SuggestionIntro) {
					t.Errorf("body %q", c.Body)
				}
			}
			if strings.Join(have, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("comments\n%s\nwant\n%s", strings.Join(have, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(got.Outside) != tt.outside {
				t.Errorf("outside %q, want %d", got.Outside, tt.outside)
			}
			body := got.Body("salve healed this build.")
			if tt.outside > 0 && !strings.Contains(body, "```diff\n--- a/") {
				t.Errorf("body without the patch:\n%s", body)
			}
		})
	}
}

func TestSuggestionFence(t *testing.T) {
	got := forge.Suggestions([]string{fix("util.go", "@@ -11,1 +11,1 @@\n-b\n+s := \"```\"\n")},
		[]forge.PullFile{{Filename: "util.go", Patch: "@@ -10,2 +10,3 @@\n a\n+b\n c"}})
	if len(got.Comments) != 1 || !strings.Contains(got.Comments[0].Body, "````suggestion\ns := \"```\"\n````") {
		t.Errorf("%+v", got)
	}
}

// TestReviewRoundTrip posts the suggestions of a fix as a review on the
// local server, which checks every comment's lines are in the pull
// request's diff, and refuses a comment outside it.
func TestReviewRoundTrip(t *testing.T) {
	k := kits(t, token)[0]
	g := k.f.(*forge.GitHub)
	n := k.srv.AddPR("github", k.repo, forgetest.PR{Head: "feature", Base: "main", Title: "t",
		Files: []forgetest.File{{Filename: "main.go", Patch: prPatch}}})
	ctx := context.Background()
	files, err := g.PullFiles(ctx, n)
	if err != nil || len(files) != 1 || files[0].Patch != prPatch {
		t.Fatalf("files %+v, %v", files, err)
	}
	s := forge.Suggestions([]string{
		fix("main.go", "@@ -6,4 +6,4 @@\n func main() {\n-\tfmt.Println(\"hi\")\n-\tfmt.Println(x)\n+\tfmt.Println(\"hi\", x)\n+\t_ = x\n }\n"),
		fix("go.mod", "@@ -1,1 +1,1 @@\n-module a\n+module b\n"),
	}, files)
	id, url, err := g.Review(ctx, n, forge.Review{CommitID: sha, Body: s.Body("salve healed the build."), Comments: s.Comments})
	if err != nil || id == 0 || url == "" {
		t.Fatalf("review %d %q %v", id, url, err)
	}
	rv := k.srv.Reviews(k.repo)
	if len(rv) != 1 || rv[0].Event != "COMMENT" || rv[0].CommitID != sha || len(rv[0].Comments) != 1 ||
		rv[0].Comments[0].StartLine != 7 || rv[0].Comments[0].Line != 8 || !strings.Contains(rv[0].Body, "+module b") {
		t.Errorf("reviews %+v", rv)
	}
	_, _, err = g.Review(ctx, n, forge.Review{Body: "x", Comments: []forge.ReviewComment{{Path: "main.go", Line: 30, Side: "RIGHT", Body: "no"}}})
	if !errors.Is(err, forge.ErrAPI) || !strings.Contains(err.Error(), "Line could not be resolved") {
		t.Errorf("a comment outside the diff: %v", err)
	}
	pr, err := g.Pull(ctx, n)
	if err != nil || pr.Number != n || pr.Head != "feature" {
		t.Errorf("pull %+v %v", pr, err)
	}
}

func TestParseEvent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want forge.Event
		err  bool
	}{
		{`{"pull_request":{"number":12,"head":{"sha":"` + sha + `","ref":"feature"}},"installation":{"id":5}}`, forge.Event{Number: 12, HeadSHA: sha, HeadRef: "feature", Installation: 5}, false},
		{`{"ref":"refs/heads/main","installation":{"id":9}}`, forge.Event{Installation: 9}, false},
		{`{"pull_request":{"number":"12","head":{"sha":"zz"}}}`, forge.Event{}, false},
		{`{"pull_request":{"number":3,"head":{"sha":"not-a-sha"}}}`, forge.Event{Number: 3}, false},
		{`not json`, forge.Event{}, true},
	} {
		got, err := forge.ParseEvent([]byte(tc.in))
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%s: %+v, %v", tc.in, got, err)
		}
	}
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"pull_request":{"number":12,"head":{"sha":"` + sha + `"}},"installation":{"id":5}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := forge.ParseEvent(b)
		if err == nil && (ev.Number < 0 || ev.Installation < 0) {
			t.Errorf("%+v", ev)
		}
	})
}

// FuzzSuggestions feeds hostile diffs on both sides (a fix's, and the
// pull request's patch from the network): no panic, and every comment
// targets head lines that exist in the pull request's diff.
func FuzzSuggestions(f *testing.F) {
	f.Add(fix("main.go", "@@ -4,1 +4,0 @@\n-import \"os\"\n"), prPatch)
	f.Add(fix("main.go", "@@ -1,2 +1,3 @@\n+x\n package main\n"), "@@ -0,0 +1,2 @@\n+package main\n+")
	f.Add("--- a/x\n+++ b/x\n@@ -99999999999,1 +1 @@\n-a\n", "@@ -1 +1 @@\n-a\n+a")
	f.Fuzz(func(t *testing.T, patch, pr string) {
		files := []forge.PullFile{{Filename: "main.go", Patch: pr}, {Filename: "x", Patch: pr}}
		got := forge.Suggestions([]string{patch}, files)
		for _, c := range got.Comments {
			if c.Line < 1 || (c.StartLine != 0 && c.StartLine >= c.Line) || c.Side != "RIGHT" {
				t.Errorf("comment %+v", c)
			}
		}
		_ = got.Body("x")
	})
}

func TestChanges(t *testing.T) {
	got := forge.Changes(fix("main.go", "@@ -3,5 +3,5 @@\n-import \"fmt\"\n+import \"log\"\n import \"os\"\n+import \"io\"\n \n func main() {\n"))
	if len(got) != 2 || got[0].Path != "main.go" || got[0].OldStart != 3 || len(got[0].Old) != 1 || got[0].New[0] != `import "log"` ||
		got[1].OldStart != 5 || len(got[1].Old) != 0 || got[1].New[0] != `import "io"` {
		t.Errorf("%+v", got)
	}
}
