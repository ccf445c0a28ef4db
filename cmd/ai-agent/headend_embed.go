package main

import (
	"fmt"
	"io"

	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/headend"
)

// embedConfig reads embed.<profile> of the primary agent's config layers
// (docs/ai-agent.md, Embed headend). A profile the config does not name
// serves the first agent to same-origin pages only.
func embedConfig(cfg *config.Config, profile string) (*headend.EmbedConfig, error) {
	ec := &headend.EmbedConfig{}
	if err := cfg.Check("embed", profile); err != nil {
		return nil, err
	}
	if err := cfg.Decode(ec, "embed", profile); err != nil {
		return nil, err
	}
	return ec, nil
}

// headendConfigs gives the Slack and embed specs their config sections,
// read from the first --agent's config layers (the original reads them
// from the first layer that has them; salve's layers merge), then checks
// the listen address again now that each embed profile's secret is known.
func headendConfigs(specs []headend.Spec, hopts headend.Options, cfg *config.Config, stderr io.Writer) error {
	for i := range specs {
		sp := &specs[i]
		switch sp.Kind {
		case headend.KindSlack:
			sc, err := slackConfig(cfg)
			if err != nil {
				return err
			}
			sp.Slack = sc
		case headend.KindEmbed:
			ec, err := embedConfig(cfg, sp.Profile)
			if err != nil {
				return err
			}
			sp.Embed = ec
			if sp.Concurrency == 0 {
				sp.Concurrency = ec.Concurrency
			}
		}
	}
	warning, err := hopts.CheckListen(specs)
	if err != nil {
		return fmt.Errorf("%w: %w", config.ErrConfig, err)
	}
	if warning != "" {
		fmt.Fprintf(stderr, "ai-agent: %s\n", warning)
	}
	return nil
}
