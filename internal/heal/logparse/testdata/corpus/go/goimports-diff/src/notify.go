// Package notify posts messages to a webhook.
package notify

import (
	"bytes"
	"net/http"
	"encoding/json"
	"fmt"
)

// Post sends msg as JSON to url.
func Post(url, msg string) error {
	body, err := json.Marshal(map[string]string{"text": msg})
	if err != nil {
		return err
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("notify: %s", resp.Status)
	}
	return nil
}
