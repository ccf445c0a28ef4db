package headend

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/httpguard"
)

// GUIDHeader carries a Netdata agent dashboard's machine GUID: the
// agent-dashboards tier of an embed profile is the requests that send it.
const GUIDHeader = "X-Netdata-Agent-GUID"

// Embed auth tiers, as the original names them.
const (
	tierNetdata    = "netdata-properties"
	tierDashboards = "agent-dashboards"
	tierUnknown    = "unknown"
)

// EmbedTiers sorts the requests of an embed profile into the original's
// three tiers, each with its own rate limit: pages of the listed origins,
// agent dashboards (a request with GUIDHeader), and the rest.
type EmbedTiers struct {
	NetdataProperties *EmbedTier `json:"netdataProperties"`
	AgentDashboards   *EmbedTier `json:"agentDashboards"`
	Unknown           *EmbedTier `json:"unknown"`
}

// EmbedTier is one tier. Origins is read for netdataProperties (exact
// origins, which may also call across origins), RequireGUID and
// VerifyGUIDInCloud for agentDashboards, Allow for unknown (nil allows).
type EmbedTier struct {
	Origins     []string `json:"origins"`
	RequireGUID bool     `json:"requireGuid"`
	// VerifyGUIDInCloud is accepted and treated as false, with a warning
	// at start, as the original does without a registry.
	VerifyGUIDInCloud bool                `json:"verifyGuidInCloud"`
	Allow             *bool               `json:"allow"`
	RateLimit         *EmbedTierRateLimit `json:"rateLimit"`
}

// EmbedTierRateLimit bounds a tier's requests per minute: per origin, per
// GUID (agent dashboards) or per client address; 0 does not bound.
type EmbedTierRateLimit struct {
	RequestsPerMinute        int `json:"requestsPerMinute"`
	RequestsPerMinutePerGuid int `json:"requestsPerMinutePerGuid"`
	RequestsPerMinutePerIP   int `json:"requestsPerMinutePerIp"`
}

// tierLimits are one tier's limiters, nil where unbounded.
type tierLimits struct{ perOrigin, perGUID, perIP *windowLimiter }

// embedAuth is an embed profile's compiled access policy: the signed
// token, the tiers and the rate limits, on an injected clock.
type embedAuth struct {
	profile string
	secret  string
	ttl     time.Duration
	tiers   *EmbedTiers
	global  *windowLimiter
	limits  map[string]tierLimits
	now     func() time.Time
}

// denial is a refused request: its status, code and message.
type denial struct {
	status       int
	code, reason string
}

// newEmbedAuth checks cfg's auth and rate limits.
func newEmbedAuth(profile string, cfg *EmbedConfig, now func() time.Time) (*embedAuth, error) {
	a := &embedAuth{profile: profile, ttl: DefaultTokenTTL, limits: map[string]tierLimits{}, now: now}
	if rl := cfg.RateLimit; rl != nil && rl.Enabled && rl.RequestsPerMinute > 0 {
		a.global = newWindowLimiter(rl.RequestsPerMinute + max(rl.BurstSize, 0))
	}
	if cfg.Auth == nil {
		return a, nil
	}
	if st := cfg.Auth.SignedTokens; st != nil && st.Enabled {
		a.secret = strings.TrimSpace(st.Secret)
		if a.secret == "" {
			return nil, fmt.Errorf("%w: embed.%s.auth.signedTokens is enabled with no secret", ErrSpec, profile)
		}
		if st.TTLSeconds < 0 {
			return nil, fmt.Errorf("%w: embed.%s.auth.signedTokens.ttlSeconds must be positive", ErrSpec, profile)
		}
		if st.TTLSeconds > 0 {
			a.ttl = time.Duration(st.TTLSeconds) * time.Second
		}
	}
	a.tiers = cfg.Auth.Tiers
	if a.tiers == nil {
		return a, nil
	}
	for name, t := range map[string]*EmbedTier{tierNetdata: a.tiers.NetdataProperties, tierDashboards: a.tiers.AgentDashboards, tierUnknown: a.tiers.Unknown} {
		if t == nil || t.RateLimit == nil {
			continue
		}
		a.limits[name] = tierLimits{perOrigin: newWindowLimiter(t.RateLimit.RequestsPerMinute),
			perGUID: newWindowLimiter(t.RateLimit.RequestsPerMinutePerGuid), perIP: newWindowLimiter(t.RateLimit.RequestsPerMinutePerIP)}
	}
	if t := a.tiers.NetdataProperties; t != nil {
		if err := checkOrigins(fmt.Sprintf("embed.%s.auth.tiers.netdataProperties.origins", profile), t.Origins); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// checkOrigins refuses a value that is not an exact origin.
func checkOrigins(where string, origins []string) error {
	for _, o := range origins {
		if !strings.Contains(o, "://") || strings.Count(o, "/") != 2 || strings.ContainsAny(o, "*?") {
			return fmt.Errorf("%w: %s: %q is not an origin (scheme://host[:port], exact)", ErrSpec, where, o)
		}
	}
	return nil
}

// tierOrigins are the origins of the netdata-properties tier.
func (a *embedAuth) tierOrigins() []string {
	if a.tiers == nil || a.tiers.NetdataProperties == nil {
		return nil
	}
	return a.tiers.NetdataProperties.Origins
}

// dashboards reports whether the profile has an agent-dashboards tier:
// then a dashboard of any origin may call it with its GUID.
func (a *embedAuth) dashboards() bool { return a.tiers != nil && a.tiers.AgentDashboards != nil }

// guardFor is the guard of one request: base, and for a dashboard's
// request (a GUID, or a preflight asking to send one) its origin too.
func (a *embedAuth) guardFor(base httpguard.Guard) func(*http.Request) httpguard.Guard {
	return func(r *http.Request) httpguard.Guard {
		o := r.Header.Get("Origin")
		if o == "" || !a.dashboards() || slices.Contains(base.Origins, o) {
			return base
		}
		asks := r.Method == http.MethodOptions && slices.ContainsFunc(strings.Split(r.Header.Get("Access-Control-Request-Headers"), ","),
			func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), GUIDHeader) })
		if !asks && !clientIDPattern.MatchString(r.Header.Get(GUIDHeader)) {
			return base
		}
		g := base
		g.Origins = append(slices.Clip(base.Origins), o)
		return g
	}
}

// authorize decides a POST /v1/chat: the signed token, then the tier,
// then the rate limits. It returns the tier, or the denial.
func (a *embedAuth) authorize(r *http.Request) (string, *denial) {
	now := a.now()
	origin, ip := r.Header.Get("Origin"), clientAddr(r)
	if a.secret != "" {
		if err := verifyToken(a.secret, httpguard.Bearer(r), a.ttl, now); err != nil {
			code := "invalid_token"
			if errors.Is(err, ErrTokenExpired) {
				code = "token_expired"
			}
			return "", &denial{http.StatusForbidden, code, err.Error()}
		}
	}
	tier, guid := tierUnknown, r.Header.Get(GUIDHeader)
	switch t := a.tiers; {
	case t == nil:
	case origin != "" && t.NetdataProperties != nil && slices.Contains(t.NetdataProperties.Origins, origin):
		tier = tierNetdata
	case guid != "" && !clientIDPattern.MatchString(guid):
		return "", &denial{http.StatusForbidden, "invalid_guid", GUIDHeader + " must be a machine GUID (a UUID)"}
	case guid != "":
		tier = tierDashboards
	case t.AgentDashboards != nil && t.AgentDashboards.RequireGUID:
		return "", &denial{http.StatusForbidden, "missing_guid", "missing agent guid: send " + GUIDHeader}
	case t.Unknown != nil && t.Unknown.Allow != nil && !*t.Unknown.Allow:
		return "", &denial{http.StatusForbidden, "origin_not_allowed", "origin not allowed"}
	}
	key := origin
	if key == "" {
		key = ip
	}
	if a.global != nil && !a.global.allow(key, now) {
		return "", &denial{http.StatusTooManyRequests, "rate_limited", "rate limit exceeded"}
	}
	l := a.limits[tier]
	var ok bool
	switch {
	case tier == tierNetdata && l.perOrigin != nil:
		ok = l.perOrigin.allow(key, now)
	case tier == tierDashboards && l.perGUID != nil:
		ok = l.perGUID.allow(guid, now)
	case l.perIP != nil:
		ok = l.perIP.allow(ip, now)
	default:
		ok = true
	}
	if !ok {
		return "", &denial{http.StatusTooManyRequests, "rate_limited", "rate limit exceeded for the " + tier + " tier"}
	}
	return tier, nil
}

// windowLimiter allows max requests per key in each fixed minute.
type windowLimiter struct {
	mu     sync.Mutex
	max    int
	start  time.Time
	counts map[string]int
}

// newWindowLimiter returns a limiter of perMinute requests, nil for 0 or
// less (no bound).
func newWindowLimiter(perMinute int) *windowLimiter {
	if perMinute <= 0 {
		return nil
	}
	return &windowLimiter{max: perMinute, counts: map[string]int{}}
}

func (l *windowLimiter) allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.start) >= time.Minute || now.Before(l.start) {
		l.start, l.counts = now, map[string]int{}
	}
	if l.counts[key] >= l.max {
		return false
	}
	l.counts[key]++
	return true
}
