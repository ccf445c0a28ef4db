// Package ui is salve's web run viewer: every heal, exec and tool run of a
// run store, seen instead of read. It is read-only, built on html/template
// and net/http with its few assets embedded, and works without JavaScript
// except for the live updates of a running heal (server-sent events).
//
// URLs name runs and artifacts by their ids and names in the store, never
// by a file path, so a request cannot reach a file the store does not
// list. Logs are streamed line by line, never loaded whole.
package ui

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/ansi"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/httpguard"
	"github.com/salve-dev/salve/internal/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Server serves the viewer over one run store.
type Server struct {
	// Store is the run store; the viewer only reads it.
	Store *store.Store
	// Token, when set, is required as a bearer token (or the cookie set
	// by /login?token=…), compared in constant time.
	Token string
	// Logger receives request errors; nil discards them.
	Logger *slog.Logger
	// Poll is how often a live page checks the store; zero means 1 s.
	Poll time.Duration

	tmpl *template.Template
	mux  *http.ServeMux

	reposMu   sync.Mutex
	repos     []string
	reposTime time.Time
}

// reposTTL is how long the list of repositories for the filter is reused:
// reading it scans every run's summary.
const reposTTL = 30 * time.Second

func (s *Server) repoList(ctx context.Context) []string {
	s.reposMu.Lock()
	defer s.reposMu.Unlock()
	if s.repos != nil && time.Since(s.reposTime) < reposTTL {
		return s.repos
	}
	r, err := s.Store.Repos(ctx, 200)
	if err != nil {
		return s.repos
	}
	s.repos, s.reposTime = r, time.Now()
	return r
}

// New returns a viewer over st.
func New(st *store.Store, token string, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{Store: st, Token: token, Logger: logger}
	funcs := template.FuncMap{
		"dur":     fmtDuration,
		"cost":    func(f float64) string { return fmt.Sprintf("$%.4f", f) },
		"short":   func(s string) string { return s[:min(8, len(s))] },
		"diff":    ParseDiff,
		"join":    strings.Join,
		"add":     func(a, b int) int { return a + b },
		"outcome": outcomeClass,
		"query":   url.QueryEscape,
		"lines":   linesParam,
		"rundur":  runDuration,
		"dict":    func(d Diff, split bool) map[string]any { return map[string]any{"Diff": d, "Split": split} },
		"stage":   stageName,
		"detail":  stageDetail,
	}
	t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("ui: templates: %w", err)
	}
	s.tmpl = t
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.list)
	mux.HandleFunc("GET /runs/{id}", s.run)
	mux.HandleFunc("GET /runs/{id}/live", s.live)
	mux.HandleFunc("GET /runs/{id}/artifacts/{name}", s.artifact)
	mux.HandleFunc("GET /login", s.login)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { s.notFound(w, r, "no such page") })
	s.mux = mux
	return s, nil
}

// ServeHTTP sets the security headers, refuses anything but GET and HEAD,
// passes the request through the shared guard (package httpguard: on
// loopback a foreign Host is refused, so a page rebound to this machine
// cannot read the logs; only the viewer's own pages, or a link, may open
// it; the token when one is set) and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "the viewer is read-only", http.StatusMethodNotAllowed)
		return
	}
	g := s.guard()
	if g.Allow(w, r) {
		s.mux.ServeHTTP(w, r)
	}
}

// loginRule lets /login in without the token: it checks the one it is
// given.
var loginRule = []httpguard.Rule{{Path: "/login", NoToken: true}}

// guard is built per request: Token may be set after New.
func (s *Server) guard() httpguard.Guard {
	return httpguard.Guard{
		Token: httpguard.Token{Value: s.Token, Cookie: httpguard.SessionCookie},
		Rules: loginRule,
		// A link from elsewhere (a pull request, a chat) opens a page;
		// the page that linked cannot read it.
		Navigation: true,
		Deny: func(w http.ResponseWriter, _ *http.Request, status int, reason string) {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="salve"`)
				reason = "a token is required: send Authorization: Bearer TOKEN, or open /login?token=TOKEN once"
			}
			http.Error(w, reason, status)
		},
	}
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("token")
	if !httpguard.Equal(tok, s.Token) {
		http.Error(w, "wrong token", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: httpguard.SessionCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := s.tmpl.ExecuteTemplate(w, name, data); err != nil {
		s.Logger.Warn("ui: render", "template", name, "error", err)
	}
}

func (s *Server) notFound(w http.ResponseWriter, _ *http.Request, msg string) {
	s.render(w, http.StatusNotFound, "error.html", map[string]any{"Title": "Not found", "Status": 404, "Message": msg})
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	s.Logger.Warn("ui: store", "error", err)
	s.render(w, http.StatusInternalServerError, "error.html", map[string]any{"Title": "Error", "Status": 500, "Message": "the run store could not be read: " + err.Error()})
}

// PageSize is the number of runs per page of the list.
const PageSize = 50

type listPage struct {
	Title              string
	Rows               []store.RunRow
	Total, Page, Pages int
	Kind, Status, Repo string
	Repos              []string
	Kinds              []string
	Statuses           []string
	Prev, Next         string
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	pq := store.PageQuery{Kind: q.Get("kind"), Status: q.Get("status"), Repo: q.Get("repo"), Offset: (page - 1) * PageSize, Limit: PageSize}
	rows, total, err := s.Store.ListPage(r.Context(), pq)
	if err != nil {
		s.fail(w, err)
		return
	}
	repos := s.repoList(r.Context())
	p := listPage{Title: "Runs", Rows: rows, Total: total, Page: page, Pages: max(1, (total+PageSize-1)/PageSize),
		Kind: pq.Kind, Status: pq.Status, Repo: pq.Repo, Repos: repos,
		Kinds:    []string{store.KindHeal, store.KindExec, store.KindTool},
		Statuses: []string{results.OutcomeGreen, results.OutcomeRed, "running", "interrupted", "succeeded", "failed", "timed_out", "scope_violation"}}
	link := func(n int) string {
		v := url.Values{}
		for k, val := range map[string]string{"kind": pq.Kind, "status": pq.Status, "repo": pq.Repo} {
			if val != "" {
				v.Set(k, val)
			}
		}
		v.Set("page", strconv.Itoa(n))
		return "/?" + v.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if page < p.Pages {
		p.Next = link(page + 1)
	}
	s.render(w, http.StatusOK, "list.html", p)
}

// runPage is what every run page shows; the kind-specific parts are set
// for heals, execs and tool runs.
type runPage struct {
	Title    string
	View     store.RunView
	Duration string
	Running  bool
	Heal     *results.Results
	HealBugs []bugRow
	Tiers    string // the heal's tiers, those not configured marked so
	Commits  []commitView
	// Sessions are the agent tier's sessions that led to no commit.
	Sessions []sessionView
	Exec     *execView
	Split    bool
	Logs     []store.Artifact
}

type bugRow struct {
	results.BugResult
	Rejections []results.Attempt
}

type commitView struct {
	results.Commit
	Diffs []fileDiff
	// Agent is the session of the agent tier that wrote the commit's fix,
	// shown beside its diff; nil for the other tiers.
	Agent *results.AgentSession
}

// sessionView is an agent session that led to no commit, with the bug it
// worked on and how the attempt ended.
type sessionView struct {
	Bug     string
	Outcome string
	Reason  string
	Agent   *results.AgentSession
}

type fileDiff struct {
	Path string
	Diff Diff
}

type execView struct {
	Input  contract.ExecutorInput
	Output contract.ExecutorOutput
	Lines  []int
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, err := s.Store.View(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		s.notFound(w, r, "there is no run "+id+" in this store")
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	p := runPage{Title: v.Run.Kind + " " + short(v.Run.RunID), View: v, Duration: runDuration(v.Run), Running: v.Run.CompletedAt == "",
		Split: r.URL.Query().Get("view") == "split"}
	for _, a := range v.Artifacts {
		if strings.HasSuffix(a.Name, ".log") || a.MediaType == "text/plain" || strings.HasPrefix(a.MediaType, "text/plain") {
			p.Logs = append(p.Logs, a)
		}
	}
	switch v.Run.Kind {
	case store.KindHeal:
		var res results.Results
		if len(v.Run.Summary) > 0 && json.Unmarshal(v.Run.Summary, &res) == nil && res.RunID != "" {
			p.Heal = &res
			p.HealBugs, p.Commits = healParts(&res)
			p.Sessions = agentSessions(&res, p.Commits)
			p.Tiers = tiersLine(&res)
		}
	case store.KindExec:
		p.Exec = execParts(v)
	}
	s.render(w, http.StatusOK, "run.html", p)
}

// tiersLine lists the heal's tiers in order, marking "(not configured)"
// a tier the heal had not set up, or every attempt of which found it so
// (the llm tier without a model): the page must not suggest a model was
// asked.
func tiersLine(res *results.Results) string {
	seen, idle := map[string]bool{}, map[string]bool{}
	for _, f := range res.Unconfigured {
		idle[f] = true
	}
	for _, b := range res.Bugs {
		for _, a := range b.Attempts {
			if a.Outcome == results.AttemptNotConfigured {
				idle[a.Fixer] = true
			} else {
				seen[a.Fixer] = true
			}
		}
	}
	parts := make([]string, len(res.Fixers))
	for i, f := range res.Fixers {
		parts[i] = f
		if idle[f] && !seen[f] {
			parts[i] += " (not configured)"
		}
	}
	return strings.Join(parts, ", ")
}

// healParts groups a heal's bugs and its commits' diffs for the page.
func healParts(res *results.Results) ([]bugRow, []commitView) {
	var bugs []bugRow
	for _, b := range res.Bugs {
		row := bugRow{BugResult: b}
		for _, a := range b.Attempts {
			// A tier that had nothing to offer, or was not configured,
			// turned nothing down: the bug's own line says so.
			switch a.Outcome {
			case results.AttemptRejected, results.AttemptReverted, results.AttemptError:
				row.Rejections = append(row.Rejections, a)
			}
		}
		bugs = append(bugs, row)
	}
	var commits []commitView
	for _, c := range res.Commits {
		cv := commitView{Commit: c}
		seen := map[string]bool{}
		for _, b := range res.Bugs {
			if b.Commit != c.Hash {
				continue
			}
			if b.Diff != "" && !seen[b.Diff] {
				seen[b.Diff] = true
				cv.Diffs = append(cv.Diffs, fileDiff{Path: strings.Join(c.Files, ", "), Diff: ParseDiff(b.Diff)})
			}
			for _, a := range b.Attempts {
				if a.Agent != nil && a.Outcome == results.AttemptAccepted {
					cv.Agent = a.Agent
				}
			}
		}
		commits = append(commits, cv)
	}
	return bugs, commits
}

// agentSessions returns the agent sessions of a heal that no commit
// shows, once each.
func agentSessions(res *results.Results, commits []commitView) []sessionView {
	seen := map[*results.AgentSession]bool{}
	var out []sessionView
	for _, b := range res.Bugs {
		for _, a := range b.Attempts {
			if a.Agent == nil || seen[a.Agent] || (a.Outcome == results.AttemptAccepted && b.Commit != "") {
				continue
			}
			seen[a.Agent] = true
			out = append(out, sessionView{Bug: fmt.Sprintf("%s:%d", b.Bug.FilePath, b.Bug.LineNumber), Outcome: a.Outcome, Reason: a.Reason, Agent: a.Agent})
		}
	}
	return out
}

func execParts(v store.RunView) *execView {
	for _, e := range v.Events {
		raw, err := json.Marshal(e.Context)
		if err != nil {
			continue
		}
		var ctx struct {
			In  *contract.ExecutorInput  `json:"executor_input"`
			Out *contract.ExecutorOutput `json:"executor_output"`
		}
		if json.Unmarshal(raw, &ctx) == nil && ctx.Out != nil {
			ev := &execView{Output: *ctx.Out}
			if ctx.In != nil {
				ev.Input = *ctx.In
			}
			return ev
		}
	}
	return nil
}

// live streams a running run's status and stages as server-sent events,
// until it completes or the client goes away.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.Store.GetRun(r.Context(), id); err != nil {
		s.notFound(w, r, "there is no run "+id+" in this store")
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	poll := s.Poll
	if poll <= 0 {
		poll = time.Second
	}
	last := ""
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		run, err := s.Store.GetRun(r.Context(), id)
		if err != nil {
			return
		}
		stages, _ := s.Store.Stages(r.Context(), id)
		var b strings.Builder
		if err := s.tmpl.ExecuteTemplate(&b, "stages", stages); err != nil {
			return
		}
		msg, _ := json.Marshal(map[string]any{"status": run.Status, "done": run.CompletedAt != "", "stages": b.String()})
		if string(msg) != last {
			last = string(msg)
			fmt.Fprintf(w, "data: %s\n\n", msg)
			fl.Flush()
		}
		if run.CompletedAt != "" {
			fmt.Fprint(w, "event: done\ndata: {}\n\n")
			fl.Flush()
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

// artifact streams an artifact: text as an HTML page of numbered lines
// (with ?lines=3,7 highlighted), anything else as a download. A file
// artifact is read from the path the store recorded for it, never from a
// path in the URL.
func (s *Server) artifact(w http.ResponseWriter, r *http.Request) {
	id, name := r.PathValue("id"), r.PathValue("name")
	arts, err := s.Store.Artifacts(r.Context(), id)
	if err != nil {
		s.fail(w, err)
		return
	}
	var art *store.Artifact
	for i := range arts {
		if arts[i].Name == name {
			art = &arts[i]
		}
	}
	if art == nil {
		s.notFound(w, r, fmt.Sprintf("run %s has no artifact %q", id, name))
		return
	}
	var src io.Reader
	if art.Path != "" {
		f, err := os.Open(art.Path)
		if err != nil {
			s.notFound(w, r, "the artifact's file is gone: "+err.Error())
			return
		}
		defer f.Close()
		src = f
	} else {
		_, data, err := s.Store.ArtifactData(r.Context(), id, name)
		if err != nil {
			s.fail(w, err)
			return
		}
		src = strings.NewReader(string(data))
	}
	if r.URL.Query().Get("raw") == "1" || !strings.HasPrefix(art.MediaType, "text/") && art.MediaType != "application/json" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Disposition", "inline")
		_, _ = io.Copy(w, src)
		return
	}
	s.streamLog(r.Context(), w, id, art, src, linesParam(r.URL.Query().Get("lines")))
}

// streamLog writes the page head, then one table row per line as it is
// read, flushing as it goes, then the page foot.
func (s *Server) streamLog(ctx context.Context, w http.ResponseWriter, id string, art *store.Artifact, src io.Reader, hl map[int]bool) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	head := map[string]any{"Title": art.Name, "RunID": id, "Art": art, "Highlighted": len(hl)}
	if err := s.tmpl.ExecuteTemplate(w, "loghead", head); err != nil {
		return
	}
	fl, _ := w.(http.Flusher)
	br := bufio.NewReaderSize(src, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	num := make([]byte, 0, 24)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if len(line) == 0 && err != nil && err != bufio.ErrBufferFull {
			break
		}
		num = strconv.AppendInt(num[:0], int64(n), 10)
		bw.WriteString(`<tr id="L`)
		bw.Write(num)
		if hl[n] {
			bw.WriteString(`" class="hl`)
		}
		bw.WriteString(`"><td class="ln"><a href="#L`)
		bw.Write(num)
		bw.WriteString(`">`)
		bw.Write(num)
		bw.WriteString(`</a></td><td><pre>`)
		for {
			text := bytes.TrimRight(line, "\r\n")
			if bytes.IndexByte(text, 0x1b) >= 0 {
				// A log kept before salve stripped colours, or an
				// attachment: the page shows text, not escapes.
				text = []byte(ansi.Strip(string(text)))
			}
			writeEscaped(bw, text)
			if err != bufio.ErrBufferFull {
				break
			}
			// A line longer than the buffer: keep writing it.
			line, err = br.ReadSlice('\n')
		}
		bw.WriteString("</pre></td></tr>\n")
		if n%2000 == 0 {
			_ = bw.Flush()
			if fl != nil {
				fl.Flush()
			}
			if ctx.Err() != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	_ = bw.Flush()
	_ = s.tmpl.ExecuteTemplate(w, "logfoot", nil)
}

// writeEscaped writes b HTML-escaped, without allocating.
func writeEscaped(w *bufio.Writer, b []byte) {
	last := 0
	for i, c := range b {
		var esc string
		switch c {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		default:
			continue
		}
		w.Write(b[last:i])
		w.WriteString(esc)
		last = i + 1
	}
	w.Write(b[last:])
}

// linesParam reads "3,7,12" into a set, ignoring anything else.
func linesParam(s string) map[int]bool {
	out := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 && len(out) < 1000 {
			out[n] = true
		}
	}
	return out
}

func short(s string) string { return s[:min(8, len(s))] }

func runDuration(r store.Run) string {
	start, err1 := time.Parse(contract.TimeLayout, r.StartedAt)
	end, err2 := time.Parse(contract.TimeLayout, r.CompletedAt)
	if err1 != nil || err2 != nil {
		return "—"
	}
	return fmtDuration(end.Sub(start).Seconds())
}

func fmtDuration(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func outcomeClass(s string) string {
	switch s {
	case results.OutcomeGreen, "succeeded", "success":
		return "ok"
	case results.OutcomeRed, "failed", "timed_out", "scope_violation", "interrupted", "error":
		return "bad"
	}
	return "neutral"
}
