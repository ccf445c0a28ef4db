package headend

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable clock for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestVerifyToken is the table of signed tokens: a fresh token passes, and
// an expired, future, forged, truncated or malformed one is refused with
// its own error.
func TestVerifyToken(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	good := SignToken("k", now.Add(-10*time.Minute))
	sig := good[strings.LastIndex(good, ".")+1:]
	flipped := good[:len(good)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", good[len(good)-1])+1)%16])
	tests := []struct {
		name, secret, token string
		ttl                 time.Duration
		want                error
	}{
		{"fresh", "k", good, time.Hour, nil},
		{"just before expiry", "k", SignToken("k", now.Add(-time.Hour+time.Second)), time.Hour, nil},
		{"at expiry", "k", SignToken("k", now.Add(-time.Hour)), time.Hour, ErrTokenExpired},
		{"expired under a short ttl", "k", good, 5 * time.Minute, ErrTokenExpired},
		{"within the skew", "k", SignToken("k", now.Add(30*time.Second)), time.Hour, nil},
		{"from the future", "k", SignToken("k", now.Add(2*time.Minute)), time.Hour, ErrTokenFuture},
		{"other secret", "other", good, time.Hour, ErrTokenForged},
		{"one hex digit changed", "k", flipped, time.Hour, ErrTokenForged},
		{"issue time changed", "k", "v1.1800000000." + sig, time.Hour, ErrTokenForged},
		{"the secret itself", "k", "k", time.Hour, ErrTokenMalformed},
		{"missing", "k", "", time.Hour, ErrTokenMissing},
		{"no signature", "k", "v1.1800000000", time.Hour, ErrTokenMalformed},
		{"other version", "k", "v2" + good[2:], time.Hour, ErrTokenMalformed},
		{"short signature", "k", good[:len(good)-2], time.Hour, ErrTokenMalformed},
		{"signature not hex", "k", good[:len(good)-1] + "z", time.Hour, ErrTokenMalformed},
		{"negative time", "k", "v1.-5." + sig, time.Hour, ErrTokenMalformed},
		{"huge", "k", good + strings.Repeat("a", 200), time.Hour, ErrTokenMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verifyToken(tt.secret, tt.token, tt.ttl, now)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if err := verifyToken("k", SignToken("k", now.Add(-2*time.Hour)), time.Hour, now); err == nil ||
		!strings.Contains(err.Error(), "expired at 2026-11-29T05:00:00Z") || !strings.Contains(err.Error(), "fetch a new one") {
		t.Errorf("the expiry error does not say when: %v", err)
	}
}

// FuzzVerifyToken: no presented token panics the check, and only a token
// whose signature is the secret's passes.
func FuzzVerifyToken(f *testing.F) {
	now := time.Unix(1800000000, 0)
	f.Add(SignToken("k", now))
	f.Add("v1.1800000000.00")
	f.Add("v1..")
	f.Add("....")
	f.Fuzz(func(t *testing.T, token string) {
		err := verifyToken("k", token, time.Hour, now)
		if err == nil && token != SignToken("k", time.Unix(parseIssued(token), 0)) {
			t.Fatalf("accepted %q, not a token of the secret", token)
		}
	})
}

// parseIssued is the issue time of a well-formed token, -1 otherwise.
func parseIssued(token string) int64 {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return -1
	}
	var n int64
	for _, c := range parts[1] {
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestEmbedTiers drives POST /v1/chat through the tiers of one profile,
// on a clock the test moves: netdata-properties origins, agent dashboards
// by GUID (from any origin), the unknown tier refused, each with its own
// rate limit, and the signed token ahead of all of them.
func TestEmbedTiers(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)}
	deny := false
	cfg := &EmbedConfig{Auth: &EmbedAuth{
		SignedTokens: &EmbedSignedTokens{Enabled: true, Secret: "s3cret", TTLSeconds: 600},
		Tiers: &EmbedTiers{
			NetdataProperties: &EmbedTier{Origins: []string{"https://app.netdata.cloud"}, RateLimit: &EmbedTierRateLimit{RequestsPerMinute: 2}},
			AgentDashboards:   &EmbedTier{RequireGUID: false, RateLimit: &EmbedTierRateLimit{RequestsPerMinutePerGuid: 1}},
			Unknown:           &EmbedTier{Allow: &deny},
		}}}
	h := start(t, Options{Agents: agents(&fakeRun{}), Now: clk.now}, Spec{Kind: KindEmbed, Profile: "default", Embed: cfg})
	url := "http://" + h.addrs[KindEmbed] + "/v1/chat"
	chat := `{"message":"hi"}`
	guid1, guid2 := "0c7e3a3e-1111-4a2b-9c3d-0123456789ab", "0c7e3a3e-2222-4a2b-9c3d-0123456789ab"
	tok := func() string { return "Bearer " + SignToken("s3cret", clk.now()) }
	type step struct {
		name          string
		hdr           map[string]string
		advance       time.Duration
		status        int
		inBody, allow string
	}
	steps := []step{
		{"no token", map[string]string{"Origin": "https://app.netdata.cloud"}, 0, 403, `"invalid_token"`, "https://app.netdata.cloud"},
		{"netdata origin 1", map[string]string{"Origin": "https://app.netdata.cloud", "Authorization": tok()}, 0, 200, "event: done", "https://app.netdata.cloud"},
		{"netdata origin 2", map[string]string{"Origin": "https://app.netdata.cloud", "Authorization": tok()}, 0, 200, "event: done", ""},
		{"netdata origin over its limit", map[string]string{"Origin": "https://app.netdata.cloud", "Authorization": tok()}, 0, 429, "netdata-properties tier", ""},
		{"dashboard of any origin", map[string]string{"Origin": "http://10.1.2.3:19999", GUIDHeader: guid1, "Authorization": tok()}, 0, 200, "event: done", "http://10.1.2.3:19999"},
		{"same guid over its limit", map[string]string{"Origin": "http://10.1.2.3:19999", GUIDHeader: guid1, "Authorization": tok()}, 0, 429, "agent-dashboards tier", ""},
		{"another guid", map[string]string{GUIDHeader: guid2, "Authorization": tok()}, 0, 200, "event: done", ""},
		{"a guid that is not one", map[string]string{GUIDHeader: "../../etc", "Authorization": tok()}, 0, 403, `"invalid_guid"`, ""},
		{"unknown caller refused", map[string]string{"Authorization": tok()}, 0, 403, `"origin_not_allowed"`, ""},
		{"other origin without guid", map[string]string{"Origin": "https://evil.example", "Authorization": tok()}, 0, 403, `"cors_rejected"`, ""},
		{"a minute later the guid may again", map[string]string{GUIDHeader: guid1, "Authorization": tok()}, time.Minute, 200, "event: done", ""},
	}
	// A token minted now is refused once its ttl has passed.
	old := "Bearer " + SignToken("s3cret", clk.now())
	steps = append(steps, step{"expired token", map[string]string{GUIDHeader: guid2, "Authorization": old}, 10 * time.Minute, 403, `"token_expired"`, ""})
	for _, st := range steps {
		clk.add(st.advance)
		resp := doEmbed(t, "POST", url, chat, st.hdr)
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != st.status || !strings.Contains(string(b), st.inBody) {
			t.Fatalf("%s: status %d, want %d with %q: %s", st.name, resp.StatusCode, st.status, st.inBody, b)
		}
		if st.allow != "" && resp.Header.Get("Access-Control-Allow-Origin") != st.allow {
			t.Errorf("%s: Access-Control-Allow-Origin %q", st.name, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	// A dashboard's preflight asks to send the GUID and is answered.
	resp := doEmbed(t, "OPTIONS", url, "", map[string]string{"Origin": "http://10.9.9.9:19999", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type, authorization, x-netdata-agent-guid"})
	if resp.StatusCode != 204 || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), GUIDHeader) {
		t.Errorf("dashboard preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp = doEmbed(t, "OPTIONS", url, "", map[string]string{"Origin": "http://10.9.9.9:19999", "Access-Control-Request-Method": "POST"})
	if resp.StatusCode != 403 {
		t.Errorf("a preflight that does not send the GUID passed: %d", resp.StatusCode)
	}
}

// TestEmbedAuthStartErrors: tier and token settings salve cannot honour
// stop Serve at start with the key named.
func TestEmbedAuthStartErrors(t *testing.T) {
	tests := []struct {
		name string
		auth *EmbedAuth
		want string
	}{
		{"no secret", &EmbedAuth{SignedTokens: &EmbedSignedTokens{Enabled: true}}, "embed.p.auth.signedTokens is enabled with no secret"},
		{"negative ttl", &EmbedAuth{SignedTokens: &EmbedSignedTokens{Enabled: true, Secret: "x", TTLSeconds: -1}}, "ttlSeconds must be positive"},
		{"glob tier origin", &EmbedAuth{Tiers: &EmbedTiers{NetdataProperties: &EmbedTier{Origins: []string{"https://*.netdata.cloud"}}}}, "netdataProperties.origins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Serve(t.Context(), Options{Agents: agents(&fakeRun{})}, []Spec{{Kind: KindEmbed, Profile: "p", Embed: &EmbedConfig{Auth: tt.auth}}})
			if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestEmbedTranscript: two chats of one client become two turns of its
// transcript (question, status lines, answer), as the original keeps
// them; a corrupt file is started afresh, and a client id that is not a
// UUID never names a file.
func TestEmbedTranscript(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{t: time.Date(2026, 11, 29, 6, 1, 2, 3e6, time.UTC)}
	a := agents(&fakeRun{})
	for i := range a {
		a[i].SessionsDir = dir
	}
	h := start(t, Options{Agents: a, Now: clk.now}, Spec{Kind: KindEmbed, Profile: "default"})
	url := "http://" + h.addrs[KindEmbed] + "/v1/chat"
	const id = "5a1c0f2e-0000-4000-8000-00000000abcd"
	for _, q := range []string{"first?", "second?"} {
		resp := doEmbed(t, "POST", url, `{"message":"`+q+`","clientId":"`+id+`"}`, nil)
		if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "event: done") {
			t.Fatalf("chat %s: %s", q, b)
		}
		clk.add(time.Minute)
	}
	tr, err := ReadTranscript(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Version != 1 || tr.ClientID != id || tr.Origin != "embed" || len(tr.Turns) != 2 || tr.UpdatedAt != "2026-11-29T06:02:02.003Z" {
		t.Fatalf("transcript %+v", tr)
	}
	want := []TranscriptEntry{{"user", "second?"}, {"status", "progress: working on second?"}, {"assistant", "echo: second?"}}
	if got := tr.Turns[1]; got.Turn != 2 || got.TS != "2026-11-29T06:02:02.003Z" || len(got.Entries) != 3 {
		t.Fatalf("turn 2 %+v", got)
	}
	for i, e := range want {
		if tr.Turns[1].Entries[i] != e {
			t.Errorf("entry %d = %+v, want %+v", i, tr.Turns[1].Entries[i], e)
		}
	}
	// A corrupt transcript is replaced by a fresh one.
	path := dir + "/embed-conversations/" + id + ".json.gz"
	if err := os.WriteFile(path, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp := doEmbed(t, "POST", url, `{"message":"third","clientId":"`+id+`"}`, nil)
	_, _ = io.ReadAll(resp.Body)
	if tr, err = ReadTranscript(dir, id); err != nil || len(tr.Turns) != 1 || tr.Turns[0].Entries[0].Content != "third" {
		t.Fatalf("after corruption: %+v %v", tr, err)
	}
	tt := &transcripts{}
	if err := tt.append(dir, "../../escape-0000-4000-8000-00000000abcd", nil, clk.now()); err == nil {
		t.Error("a client id with a path was written")
	}
}

// TestEmbedGuardPerRequest: a GUID request of a foreign origin is let
// through by the per-request guard only when the profile has an
// agent-dashboards tier.
func TestEmbedGuardPerRequest(t *testing.T) {
	s := fuzzServer(t)
	for _, tiers := range []*EmbedTiers{nil, {AgentDashboards: &EmbedTier{}}} {
		_, gf, err := s.embedHandler(Spec{Kind: KindEmbed, Profile: "default", Embed: &EmbedConfig{Auth: &EmbedAuth{Tiers: tiers}}}, newLimiter(1, 1, time.Second, s.closing))
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodPost, "/v1/chat", strings.NewReader("{}"))
		r.Header.Set("Origin", "http://10.0.0.1:19999")
		r.Header.Set(GUIDHeader, "0c7e3a3e-1111-4a2b-9c3d-0123456789ab")
		g := gf(r)
		if got := g.Check(r) == nil; got != (tiers != nil) {
			t.Errorf("tiers %v: allowed %v", tiers != nil, got)
		}
	}
}

// BenchmarkVerifyToken checks one signed token.
func BenchmarkVerifyToken(b *testing.B) {
	now := time.Unix(1800000000, 0)
	tok := SignToken("secret", now)
	b.ReportAllocs()
	for b.Loop() {
		if err := verifyToken("secret", tok, time.Hour, now); err != nil {
			b.Fatal(err)
		}
	}
}
