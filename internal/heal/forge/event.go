package forge

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/salve-dev/salve/internal/safefile"
)

// Event is what salve reads from a GitHub webhook payload, as GitHub
// Actions writes it to $GITHUB_EVENT_PATH or as a webhook delivers it.
type Event struct {
	// Number is the pull request's number, on pull_request (and
	// pull_request_target, pull_request_review…) events; 0 otherwise.
	Number int
	// HeadSHA and HeadRef are the pull request's head commit and branch.
	HeadSHA string
	HeadRef string
	// Installation is the GitHub App installation that delivered the
	// event (installation.id); 0 when the payload has none.
	Installation int64
}

// maxEventBytes bounds an event payload (a push of many commits is the
// largest GitHub sends; it caps webhook payloads at 25 MB).
const maxEventBytes = 25 << 20

// ReadEvent reads the event payload at path (GITHUB_EVENT_PATH).
func ReadEvent(path string) (Event, error) {
	b, err := safefile.Read(path, maxEventBytes)
	if err != nil {
		return Event{}, fmt.Errorf("forge: read the event payload: %w", err)
	}
	return ParseEvent(b)
}

// ParseEvent reads the fields of Event from a webhook payload. Fields of
// the wrong kind or range are left at zero; only a payload that is not a
// JSON object is an error.
func ParseEvent(b []byte) (Event, error) {
	var raw struct {
		PullRequest *struct {
			Number int `json:"number"`
			Head   struct {
				SHA string `json:"sha"`
				Ref string `json:"ref"`
			} `json:"head"`
		} `json:"pull_request"`
		Installation *struct {
			ID int64 `json:"id"`
		} `json:"installation"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		// A field of another type is skipped, the rest still decoded.
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return Event{}, fmt.Errorf("forge: the event payload is not a JSON object: %w", err)
		}
	}
	var ev Event
	if pr := raw.PullRequest; pr != nil && pr.Number > 0 {
		ev.Number = pr.Number
		if isHexSHA(pr.Head.SHA) {
			ev.HeadSHA = pr.Head.SHA
		}
		if len(pr.Head.Ref) <= 255 {
			ev.HeadRef = pr.Head.Ref
		}
	}
	if raw.Installation != nil && raw.Installation.ID > 0 {
		ev.Installation = raw.Installation.ID
	}
	return ev, nil
}

// isHexSHA accepts a full SHA-1 or SHA-256 commit id.
func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
