package headend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultSlackAPIURL is the base of Slack's Web API; slack.apiUrl
// replaces it (a local server in tests, an Enterprise Grid proxy).
const DefaultSlackAPIURL = "https://slack.com/api/"

// slackMaxResponse bounds a Web API answer the headend reads.
const slackMaxResponse = 16 << 20

// slackAPI calls Slack's Web API: write methods as JSON, read methods
// form-encoded, each with its bearer token (docs/ai-agent.md, Slack
// headend). Tokens go in the Authorization header only and never into an
// error or a log line.
type slackAPI struct {
	base string
	bot  string
	app  string
	http *http.Client
}

func newSlackAPI(base, bot, app string) (*slackAPI, error) {
	if base == "" {
		base = DefaultSlackAPIURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: slack.apiUrl %q: expected an http(s) URL", ErrSpec, base)
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return &slackAPI{base: base, bot: bot, app: app, http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// slackError is an answer of ok false.
type slackError struct{ Method, Code string }

func (e *slackError) Error() string { return "slack " + e.Method + ": " + e.Code }

// slackReadMethods are sent form-encoded: not every read method accepts a
// JSON body.
var slackReadMethods = map[string]bool{
	"auth.test": true, "conversations.replies": true, "conversations.history": true,
	"conversations.info": true, "users.info": true, "chat.getPermalink": true, "apps.connections.open": true,
}

// call invokes method with args and decodes the answer into out (which
// may be nil). It retries a 429 after its Retry-After, at most three
// times; appToken selects the app-level token instead of the bot's.
func (c *slackAPI) call(ctx context.Context, method string, appToken bool, args map[string]any, out any) error {
	token := c.bot
	if appToken {
		token = c.app
	}
	for attempt := 0; ; attempt++ {
		var body io.Reader
		ctype := "application/json; charset=utf-8"
		if slackReadMethods[method] {
			form := url.Values{}
			for k, v := range args {
				form.Set(k, fmt.Sprint(v))
			}
			body, ctype = strings.NewReader(form.Encode()), "application/x-www-form-urlencoded"
		} else {
			b, err := json.Marshal(args)
			if err != nil {
				return fmt.Errorf("slack %s: %w", method, err)
			}
			body = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+method, body)
		if err != nil {
			return fmt.Errorf("slack %s: %w", method, err)
		}
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := c.http.Do(req)
		if err != nil {
			return fmt.Errorf("slack %s: %w", method, err)
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, slackMaxResponse))
		_ = resp.Body.Close()
		if err != nil {
			return fmt.Errorf("slack %s: read answer: %w", method, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests && attempt < 3 {
			wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			wait = min(max(wait, 1), 30)
			t := time.NewTimer(time.Duration(wait) * time.Second)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("slack %s: %w", method, ctx.Err())
			case <-t.C:
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("slack %s: HTTP %d", method, resp.StatusCode)
		}
		var head struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			return fmt.Errorf("slack %s: answer is not JSON: %w", method, err)
		}
		if !head.OK {
			if head.Error == "" {
				head.Error = "unknown_error"
			}
			return &slackError{Method: method, Code: head.Error}
		}
		if out != nil {
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("slack %s: decode answer: %w", method, err)
			}
		}
		return nil
	}
}

// slackIdentity is the bot's own identity (auth.test).
type slackIdentity struct {
	UserID string `json:"user_id"`
	BotID  string `json:"bot_id"`
	Team   string `json:"team"`
	URL    string `json:"url"`
}

func (c *slackAPI) authTest(ctx context.Context) (slackIdentity, error) {
	var id slackIdentity
	err := c.call(ctx, "auth.test", false, nil, &id)
	return id, err
}

// connectionsOpen asks for a single-use Socket Mode URL.
func (c *slackAPI) connectionsOpen(ctx context.Context) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	if err := c.call(ctx, "apps.connections.open", true, nil, &out); err != nil {
		return "", err
	}
	u, err := url.Parse(out.URL)
	if err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || u.Host == "" {
		return "", errors.New("slack apps.connections.open: the answer carries no ws(s) URL")
	}
	return out.URL, nil
}

// postMessage posts text (in thread threadTS when set) and returns the
// new message's ts.
func (c *slackAPI) postMessage(ctx context.Context, channel, threadTS, text string, blocks []any) (string, error) {
	args := map[string]any{"channel": channel, "text": text}
	if threadTS != "" {
		args["thread_ts"] = threadTS
	}
	if blocks != nil {
		args["blocks"] = blocks
	}
	var out struct {
		TS string `json:"ts"`
	}
	if err := c.call(ctx, "chat.postMessage", false, args, &out); err != nil {
		return "", err
	}
	return out.TS, nil
}

// update replaces a message's text and blocks (an empty, non-nil blocks
// clears them).
func (c *slackAPI) update(ctx context.Context, channel, ts, text string, blocks []any) error {
	args := map[string]any{"channel": channel, "ts": ts, "text": text}
	if blocks != nil {
		args["blocks"] = blocks
	}
	return c.call(ctx, "chat.update", false, args, nil)
}

// slackMessage is the part of a message the context needs; Raw keeps it
// whole for the prompt.
type slackMessage struct {
	User string `json:"user"`
	Text string `json:"text"`
	TS   string `json:"ts"`
	Raw  json.RawMessage
}

// messages reads a conversations.replies or .history answer.
func (c *slackAPI) messages(ctx context.Context, method string, args map[string]any) ([]slackMessage, error) {
	var out struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := c.call(ctx, method, false, args, &out); err != nil {
		return nil, err
	}
	msgs := make([]slackMessage, 0, len(out.Messages))
	for _, raw := range out.Messages {
		var m slackMessage
		if json.Unmarshal(raw, &m) == nil {
			m.Raw = raw
			msgs = append(msgs, m)
		}
	}
	return msgs, nil
}

// channelName is a channel's name (conversations.info), "" when Slack
// does not say.
func (c *slackAPI) channelName(ctx context.Context, channel string) string {
	var out struct {
		Channel struct {
			Name string `json:"name"`
		} `json:"channel"`
	}
	if c.call(ctx, "conversations.info", false, map[string]any{"channel": channel}, &out) != nil {
		return ""
	}
	return out.Channel.Name
}
