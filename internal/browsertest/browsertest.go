// Package browsertest drives Debian's chromium headless over the DevTools
// protocol (chromedp) for the browser tests of salve's web pages: the run
// viewer and ai-agent's embed widget. A test skips when chromium is
// absent; scripts/ui/setup.sh installs it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the browser's path: $SALVE_CHROMIUM, chromium,
// chromium-browser or google-chrome, or skips the test.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, c := range []string{os.Getenv("SALVE_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (scripts/ui/setup.sh installs Debian's chromium): the browser tests need it")
	return ""
}

// startAttempts is how many times Browser starts chromium before it
// fails the test: on a busy machine chromium now and then exits before
// it listens (chromedp's "chrome failed to start"), and a second start
// succeeds.
const startAttempts = 3

// Browser starts a headless chromium with a fresh profile and a
// 1300×1000 window; the context ends after three minutes or at cancel.
// The browser is running when it returns.
func Browser(t testing.TB) (context.Context, context.CancelFunc) {
	t.Helper()
	path := Chromium(t)
	var err error
	for range startAttempts {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox,
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(t.TempDir()),
			chromedp.WindowSize(1300, 1000),
		)
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(actx)
		ctx, tcancel := context.WithTimeout(ctx, 3*time.Minute)
		stop := func() { tcancel(); cancel(); acancel() }
		if err = chromedp.Do(ctx); err == nil {
			return ctx, stop
		}
		stop()
		t.Logf("chromium did not start (%v); starting it again", err)
	}
	t.Fatalf("chromium did not start in %d attempts: %v", startAttempts, err)
	return nil, nil
}
