// Package all assembles every connector kind: each blank import below runs that package's init, which
// registers its kind with the connectors registry. Adding a kind is its package plus one line here.
package all

import (
	_ "github.com/feedbridge/feedbridge/connectors/csvimport"
	_ "github.com/feedbridge/feedbridge/connectors/email"
	_ "github.com/feedbridge/feedbridge/connectors/slack"
	_ "github.com/feedbridge/feedbridge/connectors/webhook"
)
