package email

import "github.com/feedbridge/feedbridge/connectors"

func init() {
	connectors.Register(connectors.Kind{
		Name:    Kind,
		Summary: "One IMAP mailbox, polled (or IDLE) on one replica at a time; each message becomes a record once.",
		Config:  func() any { return &Config{} },
		Build:   Build,
	})
}
