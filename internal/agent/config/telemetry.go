package config

// Telemetry is the config's telemetry section, with the original's keys
// (docs/ai-agent.md "Telemetry and cost"). Pointers tell an absent key from
// a zero one, so the command line can fill what the file leaves out.
type Telemetry struct {
	Enabled *bool `json:"enabled,omitempty"`
	OTLP    struct {
		Endpoint  *string `json:"endpoint,omitempty"`
		TimeoutMs *int    `json:"timeoutMs,omitempty"`
	} `json:"otlp"`
	Prometheus struct {
		Enabled *bool   `json:"enabled,omitempty"`
		Host    *string `json:"host,omitempty"`
		Port    *int    `json:"port,omitempty"`
	} `json:"prometheus"`
	Labels map[string]string `json:"labels,omitempty"`
	Traces struct {
		Enabled *bool    `json:"enabled,omitempty"`
		Sampler *string  `json:"sampler,omitempty"`
		Ratio   *float64 `json:"ratio,omitempty"`
	} `json:"traces"`
}

// Telemetry reads the telemetry section; an absent section is the zero
// value.
func (c *Config) Telemetry() (Telemetry, error) {
	var t Telemetry
	if err := c.Check("telemetry"); err != nil {
		return t, err
	}
	if err := c.Decode(&t, "telemetry"); err != nil {
		return t, err
	}
	return t, nil
}
