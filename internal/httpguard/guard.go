// Package httpguard is the one gate in front of every HTTP server salve and
// ai-agent run (salve serve, salve ui, salve mcp --http and the ai-agent
// headends). A Guard checks, in this order, every request a server
// answers:
//
//  1. On a loopback connection, the Host header names this machine
//     (localhost, 127.x.y.z or [::1], with or without a port): a web page
//     whose name was rebound to 127.0.0.1 sends its own name and is refused.
//  2. A browser request comes from the server's own origin, or from one of
//     the Guard's explicitly allowed Origins: an Origin header must name
//     the Host the request was sent to or an allowed origin; without one, a
//     Sec-Fetch-Site other than same-origin or none is refused. Programs
//     (curl, SDKs) send neither header and pass.
//  3. The bearer token, when one is configured (see Token).
//  4. On JSON APIs, a request body declares application/json.
//  5. A request body is at most MaxBodyBytes.
//
// Rules relax checks 3 and 4 for chosen paths (a signed webhook, a health
// check); the Host check is never relaxed, and the Origin check only for a
// Rule's AnySite GETs (a public script any page may load). Listen decides
// whether a server may start on its address without a token.
package httpguard

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"strings"
)

// Refusal is why a Guard turned a request away.
type Refusal struct {
	// Status is the HTTP status of the answer: 403, 401, 415 or 413.
	Status int
	// Reason says what was wrong, for the client.
	Reason string
}

// DenyFunc writes a refusal in a server's own format (a JSON error
// object, an HTML page).
type DenyFunc func(w http.ResponseWriter, r *http.Request, status int, reason string)

// Rule relaxes the token and content-type checks for the paths it
// matches. The Host and Origin checks apply to every path.
type Rule struct {
	// Path is an exact path, or, when it ends in "/", every path under it.
	Path string
	// NoToken lets requests in without the token: they authenticate
	// themselves (a webhook signed with its own secret) or serve nothing
	// private (a health check, the login page).
	NoToken bool
	// AnyBody lets bodies of any content type in (a webhook checks the
	// signature of its raw body, whatever its type).
	AnyBody bool
	// AnySite lets GET and HEAD requests that carry no Origin header in
	// from any site: a page of any origin may load the path with a
	// <script> or <img> tag, which cannot read the answer otherwise. The
	// path must serve public content and change nothing.
	AnySite bool
}

// matches reports whether the rule covers path.
func (r Rule) matches(path string) bool {
	if strings.HasSuffix(r.Path, "/") {
		return strings.HasPrefix(path, r.Path)
	}
	return path == r.Path
}

// Guard is the set of checks in front of one server. The zero Guard
// checks Host and Origin only. A Guard is a value: build it per request
// when its fields may change while the server runs.
type Guard struct {
	// Token is required on every path no Rule exempts; an empty
	// Token.Value requires none.
	Token Token
	// Rules relax the token and content-type checks for some paths; the
	// first rule that matches a path applies.
	Rules []Rule
	// JSON requires requests with a body to send Content-Type
	// application/json (parameters allowed). A request with a body and no
	// Content-Type passes: every browser request that can carry one also
	// carries an Origin, which check 2 holds to the server's own.
	JSON bool
	// MaxBodyBytes bounds a request body; zero means no bound here (the
	// handler keeps its own).
	MaxBodyBytes int64
	// Navigation lets a cross-site top-level GET or HEAD navigation in (a
	// link from elsewhere to a read-only page). It suits servers whose
	// GETs change nothing; the page it loads cannot be read by the site
	// that linked it.
	Navigation bool
	// Origins are other origins whose pages may call the server across
	// origins (a widget embedded in another site): exact
	// scheme://host[:port] values, as a browser sends them in its Origin
	// header. The server answers their CORS preflights itself.
	Origins []string
	// Deny writes refusals; nil writes them as plain text.
	Deny DenyFunc
}

// check is one of the Guard's checks: nil lets the request on.
type check func(g *Guard, r *http.Request, rule Rule) *Refusal

// checks are the Guard's checks, in the order they run.
var checks = []struct {
	name string
	run  check
}{
	{"host", checkHost},
	{"origin", checkOrigin},
	{"token", checkToken},
	{"content type", checkContentType},
	{"body size", checkBodySize},
}

// Check runs the checks on r and returns the first refusal, or nil when r
// may be served. It does not read or change r.
func (g *Guard) Check(r *http.Request) *Refusal {
	rule := g.rule(r.URL.Path)
	for _, c := range checks {
		if ref := c.run(g, r, rule); ref != nil {
			return ref
		}
	}
	return nil
}

// Allow checks r: it writes the refusal and returns false, or bounds r's
// body to MaxBodyBytes and returns true.
func (g *Guard) Allow(w http.ResponseWriter, r *http.Request) bool {
	if ref := g.Check(r); ref != nil {
		g.deny(w, r, ref)
		return false
	}
	if g.MaxBodyBytes > 0 && r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, g.MaxBodyBytes)
	}
	return true
}

// Handler returns h behind the guard.
func (g Guard) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.Allow(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

func (g *Guard) deny(w http.ResponseWriter, r *http.Request, ref *Refusal) {
	if ref.Status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	if g.Deny != nil {
		g.Deny(w, r, ref.Status, ref.Reason)
		return
	}
	http.Error(w, ref.Reason, ref.Status)
}

func (g *Guard) rule(path string) Rule {
	for _, r := range g.Rules {
		if r.matches(path) {
			return r
		}
	}
	return Rule{}
}

// maxQuoted bounds the part of a header value quoted back in a refusal.
const maxQuoted = 80

func quote(s string) string {
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "…"
	}
	return fmt.Sprintf("%q", s)
}

func checkHost(_ *Guard, r *http.Request, _ Rule) *Refusal {
	if !onLoopback(r) || LocalHost(r.Host) {
		return nil
	}
	return &Refusal{http.StatusForbidden, fmt.Sprintf("Host %s refused: this server listens on loopback and answers only localhost, 127.0.0.1 or [::1] (a web page whose name was rebound to this machine sends its own)", quote(r.Host))}
}

// fetchSiteAllowed are the Sec-Fetch-Site values of requests a page of
// the server's own origin, or the user, made ("" is a program's).
var fetchSiteAllowed = map[string]bool{"": true, "same-origin": true, "none": true}

func checkOrigin(g *Guard, r *http.Request, rule Rule) *Refusal {
	if origin, ok := r.Header["Origin"]; ok {
		if len(origin) == 1 && (SameOrigin(origin[0], r.Host) || g.AllowedOrigin(origin[0])) {
			return nil
		}
		return &Refusal{http.StatusForbidden, fmt.Sprintf("cross-origin request refused: a page of %s may not call this server", quote(strings.Join(origin, ",")))}
	}
	site := r.Header.Get("Sec-Fetch-Site")
	if fetchSiteAllowed[site] || (g.Navigation && navigation(r)) || (rule.AnySite && readOnly(r)) {
		return nil
	}
	return &Refusal{http.StatusForbidden, fmt.Sprintf("cross-origin request refused (Sec-Fetch-Site %s): only this server's own pages may call it", quote(site))}
}

// AllowedOrigin reports whether origin is one of the Guard's Origins,
// compared exactly (an origin has no path and a browser sends it in one
// canonical form).
func (g *Guard) AllowedOrigin(origin string) bool {
	for _, o := range g.Origins {
		if o != "" && o == origin {
			return true
		}
	}
	return false
}

// readOnly reports whether r is a GET or HEAD.
func readOnly(r *http.Request) bool {
	return r.Method == http.MethodGet || r.Method == http.MethodHead
}

// navigation reports whether r is a top-level GET or HEAD navigation.
func navigation(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
}

func checkToken(g *Guard, r *http.Request, rule Rule) *Refusal {
	if rule.NoToken || g.Token.Authorized(r) {
		return nil
	}
	return &Refusal{http.StatusUnauthorized, "missing or invalid bearer token"}
}

func checkContentType(g *Guard, r *http.Request, rule Rule) *Refusal {
	if !g.JSON || rule.AnyBody || !hasBody(r) {
		return nil
	}
	ct, ok := r.Header["Content-Type"]
	if !ok {
		return nil
	}
	if len(ct) == 1 && IsJSON(ct[0]) {
		return nil
	}
	return &Refusal{http.StatusUnsupportedMediaType, fmt.Sprintf("send the body as Content-Type application/json, not %s", quote(strings.Join(ct, ",")))}
}

func checkBodySize(g *Guard, r *http.Request, _ Rule) *Refusal {
	if g.MaxBodyBytes > 0 && r.ContentLength > g.MaxBodyBytes {
		return &Refusal{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body too large: it is larger than %d bytes", g.MaxBodyBytes)}
	}
	return nil
}

// hasBody reports whether r carries a body (a known length above zero, or
// an unknown one).
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

// IsJSON reports whether a Content-Type value is application/json, with or
// without parameters.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// onLoopback reports whether r arrived on a loopback address of this
// machine (whatever address the listener was bound to).
func onLoopback(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && LoopbackHost(host)
}
