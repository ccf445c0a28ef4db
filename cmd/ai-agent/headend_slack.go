package main

import (
	"fmt"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/headend"
)

// slackConfig reads the slack section of the primary agent's config layers
// (docs/ai-agent.md, Slack headend): its ${VAR} placeholders must resolve,
// so the tokens can come from the environment or an env file.
func slackConfig(cfg *config.Config) (*headend.SlackConfig, error) {
	if !cfg.Has("slack") {
		return nil, fmt.Errorf("%w: --slack needs a slack section in the config (slack.botToken and slack.appToken)", config.ErrConfig)
	}
	if err := cfg.Check("slack"); err != nil {
		return nil, err
	}
	sc := &headend.SlackConfig{}
	if err := cfg.Decode(sc, "slack"); err != nil {
		return nil, err
	}
	return sc, nil
}
