// Package api is a small client of a weather service's JSON API.
package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Client asks the weather service at its base URL.
type Client struct {
	base string
	hc   *http.Client
}

// NewClient returns a client of the service at base.
func NewClient(base string) *Client {
	return &Client{base: strings.TrimSuffix(base, "/"), hc: http.DefaultClient}
}

// Current returns the current temperature in city, in degrees Celsius.
func (c *Client) Current(city string) (float64, error) {
	resp, err := c.hc.Get(c.base + "/current?city=" + url.QueryEscape(city))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("current %s: %s", city, resp.Status)
	}
	var body struct {
		Celsius float64 `json:"celsius"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, fmt.Errorf("current %s: %w", city, err)
	}
	return body.Celsius, nil
}
