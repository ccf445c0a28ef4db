package headend

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// SlackConfig is the config file's slack section (docs/ai-agent.md, Slack
// headend), with the original tool's keys.
type SlackConfig struct {
	// BotToken (xoxb-…) calls the Web API; AppToken (xapp-…, scope
	// connections:write) opens the Socket Mode connection.
	BotToken string `json:"botToken"`
	AppToken string `json:"appToken"`
	// SigningSecret is accepted for compatibility: in Socket Mode slash
	// commands arrive over the socket and need no signature.
	SigningSecret string `json:"signingSecret"`
	// Mentions and DMs switch app mentions and direct messages on (both
	// default on).
	Mentions *bool `json:"mentions"`
	DMs      *bool `json:"dms"`
	// UpdateIntervalMs is the least time between two progress updates of
	// one answer; 0 is 2000.
	UpdateIntervalMs int `json:"updateIntervalMs"`
	// HistoryLimit is how many thread messages are read for context; 0 is
	// 100. HistoryCharsCap bounds the context's size; 0 is 100000.
	HistoryLimit    int `json:"historyLimit"`
	HistoryCharsCap int `json:"historyCharsCap"`
	// OpenerTone picks the opener phrases: random, cheerful, formal, busy.
	OpenerTone string `json:"openerTone"`
	// Routing picks an agent per channel.
	Routing *SlackRouting `json:"routing"`
	// APIURL replaces DefaultSlackAPIURL.
	APIURL string `json:"apiUrl"`
}

// SlackRouting sends a channel's mentions and messages to an agent.
type SlackRouting struct {
	Default *SlackRoute  `json:"default"`
	Rules   []SlackRoute `json:"rules"`
	Deny    []SlackRoute `json:"deny"`
}

// SlackRoute is one routing rule. Channels are globs (* and ?) on a
// channel id when they start with C or G, else on its name (a leading #
// dropped); Agent names a served agent (its file name, with or without
// directory and .ai); Engage lists the kinds it covers (mentions,
// channel-posts, dms; empty is all, but the default route answers channel
// posts only when it lists channel-posts); PromptTemplates holds mention,
// dm and channelPost templates.
type SlackRoute struct {
	Channels        []string          `json:"channels"`
	Agent           string            `json:"agent"`
	Engage          []string          `json:"engage"`
	Enabled         *bool             `json:"enabled"`
	PromptTemplates map[string]string `json:"promptTemplates"`
}

// Engagement kinds.
const (
	engageMentions     = "mentions"
	engageDMs          = "dms"
	engageChannelPosts = "channel-posts"
)

// slackRoute is a compiled SlackRoute.
type slackRoute struct {
	ids, names []*regexp.Regexp
	agent      *Agent
	engage     map[string]bool
	templates  map[string]string
}

// slackRouter resolves a channel and kind to a route.
type slackRouter struct {
	def   *slackRoute
	rules []*slackRoute
	deny  []*slackRoute
}

// compileRouting checks and compiles r against the served agents; the
// first agent is the default's default.
func compileRouting(r *SlackRouting, agents []Agent) (*slackRouter, error) {
	byName := map[string]*Agent{}
	for i := range agents {
		byName[agents[i].Name] = &agents[i]
	}
	compile := func(where string, sr SlackRoute, needChannels bool) (*slackRoute, error) {
		out := &slackRoute{agent: &agents[0], templates: sr.PromptTemplates}
		if sr.Agent != "" {
			name := strings.TrimSuffix(path.Base(sr.Agent), ".ai")
			a, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("%w: slack.routing.%s: agent %q is not served (give it with --agent)", ErrSpec, where, sr.Agent)
			}
			out.agent = a
		}
		if needChannels && len(sr.Channels) == 0 {
			return nil, fmt.Errorf("%w: slack.routing.%s: channels is empty", ErrSpec, where)
		}
		for _, c := range sr.Channels {
			c = strings.TrimSpace(c)
			re, err := regexp.Compile("(?i)^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(strings.TrimPrefix(c, "#"))) + "$")
			if err != nil {
				return nil, fmt.Errorf("%w: slack.routing.%s: channel %q: %v", ErrSpec, where, c, err)
			}
			if strings.HasPrefix(c, "C") || strings.HasPrefix(c, "G") {
				out.ids = append(out.ids, re)
			} else {
				out.names = append(out.names, re)
			}
		}
		if len(sr.Engage) > 0 {
			out.engage = map[string]bool{}
			for _, e := range sr.Engage {
				switch e {
				case engageMentions, engageDMs, engageChannelPosts:
					out.engage[e] = true
				default:
					return nil, fmt.Errorf("%w: slack.routing.%s: unknown engage %q (mentions, channel-posts, dms)", ErrSpec, where, e)
				}
			}
		}
		return out, nil
	}
	rt := &slackRouter{}
	if r == nil {
		rt.def = &slackRoute{agent: &agents[0]}
		return rt, nil
	}
	var err error
	def := SlackRoute{}
	if r.Default != nil {
		def = *r.Default
	}
	if rt.def, err = compile("default", def, false); err != nil {
		return nil, err
	}
	for i, sr := range r.Rules {
		if sr.Enabled != nil && !*sr.Enabled {
			continue
		}
		c, err := compile(fmt.Sprintf("rules[%d]", i), sr, true)
		if err != nil {
			return nil, err
		}
		rt.rules = append(rt.rules, c)
	}
	for i, sr := range r.Deny {
		c, err := compile(fmt.Sprintf("deny[%d]", i), sr, true)
		if err != nil {
			return nil, err
		}
		rt.deny = append(rt.deny, c)
	}
	return rt, nil
}

func (r *slackRoute) covers(kind, id, name string) bool {
	if r.engage != nil && !r.engage[kind] {
		return false
	}
	for _, re := range r.ids {
		if re.MatchString(id) {
			return true
		}
	}
	for _, re := range r.names {
		if name != "" && re.MatchString(name) {
			return true
		}
	}
	return false
}

// resolve returns the route of a kind of event in a channel, nil when a
// deny rule covers it or, for a channel post, when no rule engages it
// and the default does not list channel-posts (as in the original, a
// rule without engage covers every kind).
func (rt *slackRouter) resolve(kind, id, name string) *slackRoute {
	for _, d := range rt.deny {
		if d.covers(kind, id, name) {
			return nil
		}
	}
	for _, r := range rt.rules {
		if r.covers(kind, id, name) {
			return r
		}
	}
	if kind == engageChannelPosts && !rt.def.engage[engageChannelPosts] {
		return nil
	}
	return rt.def
}

// needsNames reports whether a rule matches channel names, which cost a
// conversations.info call per channel.
func (rt *slackRouter) needsNames() bool {
	for _, r := range append(append([]*slackRoute{}, rt.rules...), rt.deny...) {
		if len(r.names) > 0 {
			return true
		}
	}
	return false
}

// template fills a prompt template's placeholders.
func fillTemplate(tpl string, vars map[string]string) string {
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(tpl)
}
