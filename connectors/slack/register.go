package slack

import "github.com/feedbridge/feedbridge/connectors"

func init() {
	connectors.Register(connectors.Kind{
		Name:    Kind,
		Summary: "Slash commands, message shortcuts and modals of a Slack app, served on /slack/commands and /slack/interactions.",
		Config:  func() any { return &Config{} },
		Build:   Build,
	})
}
