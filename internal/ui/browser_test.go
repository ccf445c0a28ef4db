package ui_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/salve-dev/salve/internal/browsertest"
	"github.com/salve-dev/salve/internal/store"
	"github.com/salve-dev/salve/internal/ui"
)

// The browser tests drive Debian's chromium (installed by make test's
// set-up) over the DevTools protocol, on a store filled by real heals and
// execs of the salve binary.

func chromium(t *testing.T) string { return browsertest.Chromium(t) }

func browser(t *testing.T) (context.Context, context.CancelFunc) { return browsertest.Browser(t) }

// screenshot saves the page to $SALVE_UI_SCREENSHOTS/name.png when set
// (scripts/ui/screenshots.sh sets it to docs/ui).
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("SALVE_UI_SCREENSHOTS")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBrowserReviewFlow(t *testing.T) {
	f := filledStore(t)
	srv, err := ui.New(f.st, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := browser(t)
	defer cancel()

	// The list: both runs, newest first, with kind, repository and outcome.
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/")); err != nil {
		t.Fatal(err)
	}
	list, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("table.runs tbody")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"heal", "exec", "green", f.repo, "salve/heal-"} {
		if !strings.Contains(list, want) {
			t.Errorf("the runs list lacks %q:\n%s", want, list)
		}
	}
	screenshot(t, ctx, "runs")

	// Click through to the heal: the bug table a reviewer reads, the
	// commits' diffs with highlighting.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a[href="/runs/`+f.healID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("table.bugs")),
	); err != nil {
		t.Fatal(err)
	}
	bugs := text(t, ctx, "table.bugs")
	summary := text(t, ctx, "p.line")
	nodes := count(t, ctx, "table.diff tr.add")
	for _, want := range []string{"IMPORT", "main.go", "fixed", "rules", "remove unused import"} {
		if !strings.Contains(bugs, want) {
			t.Errorf("the bug table lacks %q:\n%s", want, bugs)
		}
	}
	if !strings.Contains(summary, "green") || nodes == 0 {
		t.Errorf("summary %q, %d added diff lines", summary, nodes)
	}
	if count(t, ctx, "table.diff .k") == 0 {
		t.Error("no highlighted keyword in the diffs")
	}
	screenshot(t, ctx, "heal")

	// The side-by-side view of the same diffs.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a[href="?view=split"]`)),
		chromedp.WaitVisible(chromedp.CSS("table.diff.split")),
	); err != nil {
		t.Fatal(err)
	}
	if n := count(t, ctx, "table.diff.split td.add"); n == 0 {
		t.Error("side by side: no added cell")
	}
	screenshot(t, ctx, "heal-split")

	// The exec and its log, with a reported line highlighted.
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/runs/"+f.execID)); err != nil {
		t.Fatal(err)
	}
	execText := text(t, ctx, "main")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`a[href$="/artifacts/build.log"]`)),
		chromedp.WaitVisible(chromedp.CSS("table.logview")),
		chromedp.Navigate(hs.URL+"/runs/"+f.execID+"/artifacts/build.log?lines=2"),
	); err != nil {
		t.Fatal(err)
	}
	hl := text(t, ctx, "tr.hl")
	if !strings.Contains(execText, "sh check.sh") || !strings.Contains(execText, "Exit code") {
		t.Errorf("the exec page lacks its command or exit code:\n%s", execText)
	}
	if strings.TrimSpace(hl) == "" {
		t.Error("the highlighted log line is empty")
	}
	screenshot(t, ctx, "exec-log")

	// The tool run: its command, its patches, the scope violation.
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/runs/"+f.toolID)); err != nil {
		t.Fatal(err)
	}
	if toolText := text(t, ctx, "main"); !strings.Contains(toolText, "aider") || !strings.Contains(toolText, "scope violation") || !strings.Contains(toolText, "sum.go") {
		t.Errorf("the tool run page lacks its command, patch or scope violation:\n%s", toolText)
	}
	screenshot(t, ctx, "toolrun")

	// An unknown run is a 404 page.
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/runs/no-such-run")); err != nil {
		t.Fatal(err)
	}
	if h1 := text(t, ctx, "h1"); !strings.Contains(h1, "404") {
		t.Errorf("unknown run: %q", h1)
	}
}

// TestBrowserLive opens a running heal and records its stages while the
// page is open: the stage table must update without a reload, and the page
// must show the final outcome when the run finishes.
func TestBrowserLive(t *testing.T) {
	chromium(t)
	// The viewer reads the store as salve ui does (read-only, live) while
	// another connection records the run, as a heal in another process
	// would; the store has no -wal file when the viewer opens it.
	path := filepath.Join(t.TempDir(), "runs.db")
	first, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	run, err := first.CreateRun(bg, store.Run{Kind: store.KindHeal, Title: "heal live"})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	view, err := store.OpenReadOnlyLive(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer view.Close()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := ui.New(view, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	srv.Poll = 100 * time.Millisecond
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := browser(t)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/runs/"+run.RunID)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__marker = "same page"`)); err != nil {
		t.Fatal(err)
	}
	if err := st.AddStage(bg, run.RunID, "build", "ok", time.Now(), 1500*time.Millisecond, map[string]any{"iteration": 0}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.Search(`//div[@id="stages"]//td[text()="build"]`))); err != nil {
		t.Fatal(err)
	}
	// The timeline speaks words, not the stage's JSON detail.
	if err := st.AddStage(bg, run.RunID, "fix:rules", "ok", time.Now(), time.Second, map[string]any{"iteration": 1}); err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"before fixing", "fix: rules", "iteration 1"} {
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.Search(`//div[@id="stages"]//td[text()="`+cell+`"]`))); err != nil {
			t.Fatalf("timeline cell %q: %v", cell, err)
		}
	}
	marker, err := chromedp.Run(ctx, chromedp.Evaluate[string](`window.__marker`))
	if err != nil {
		t.Fatal(err)
	}
	if marker != "same page" {
		t.Fatal("the page reloaded instead of updating live")
	}
	screenshot(t, ctx, "live")
	if err := st.FinishRun(bg, run.RunID, "green", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS("#live"))); err != nil {
		t.Fatal(err)
	}
	if status := text(t, ctx, "#status"); status != "green" {
		t.Errorf("after the run finished: status %q", status)
	}
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

func count(t *testing.T, ctx context.Context, css string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", css)))
	if err != nil {
		t.Fatalf("count %s: %v", css, err)
	}
	return n
}
