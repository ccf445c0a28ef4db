package headend

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/salve-dev/salve/internal/browsertest"
)

// TestEmbedWidgetInBrowser: chromium loads the demo page, types a
// question into the widget and sees the agent's answer rendered as text;
// then a page of another origin that corsOrigins allows mounts the
// widget from the headend and gets an answer too, while a page of an
// origin not allowed is refused.
func TestEmbedWidgetInBrowser(t *testing.T) {
	browsertest.Chromium(t)
	f := &fakeRun{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endpoint := r.URL.Query().Get("endpoint")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><head><script src="` + endpoint + `/ai-agent-public.js" defer></script></head>` +
			`<body><div data-ai-agent-chat data-endpoint="` + endpoint + `"></div></body></html>`))
	}))
	defer site.Close()
	// The page's origin: the browser sends 127.0.0.1, the headend listens
	// on localhost so the two differ.
	h := start(t, Options{Agents: agents(f)}, Spec{Kind: KindEmbed, Profile: "default",
		Embed: &EmbedConfig{CorsOrigins: []string{site.URL}}})
	port := h.addrs[KindEmbed][strings.LastIndex(h.addrs[KindEmbed], ":")+1:]
	base := "http://localhost:" + port
	ctx, cancel := browsertest.Browser(t)
	defer cancel()

	ask := func(page, question string) string {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.Navigate(page),
			chromedp.WaitVisible(chromedp.CSS(".aiac-input")),
			chromedp.SendKeys(chromedp.CSS(".aiac-input"), question),
			chromedp.Click(chromedp.CSS(".aiac-send")),
		); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => {
			const n = document.querySelector('.aiac-assistant, .aiac-error');
			return n && n.textContent !== '…' ? n.className + '|' + n.textContent : '';
		})()`, chromedp.WithPollingTimeout(time.Minute)))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := ask(base+"/", "What is <b>up</b>?"); got != "aiac-msg aiac-assistant|echo: What is <b>up</b>?" {
		t.Errorf("demo page answer %q", got)
	}
	bold, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.aiac-log b').length`))
	if err != nil || bold != 0 {
		t.Errorf("the answer was parsed as HTML (%d <b> elements, %v)", bold, err)
	}
	if got := ask(site.URL+"/?endpoint="+base, "from another site"); got != "aiac-msg aiac-assistant|echo: from another site" {
		t.Errorf("allowed origin answer %q", got)
	}
	other := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)
	if got := ask(other+"/?endpoint="+base, "from a stranger"); !strings.HasPrefix(got, "aiac-msg aiac-error|") {
		t.Errorf("an origin not allowed got %q", got)
	}
	f.mu.Lock()
	n := len(f.requests)
	f.mu.Unlock()
	if n != 2 {
		t.Errorf("%d sessions ran, want 2", n)
	}
}
