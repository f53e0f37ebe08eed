package email

import (
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

// TestConformance points the entry at a loopback port where nothing listens: the kind must report the
// fault, keep retrying and still stop promptly.
func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: "email", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "inbox", "workspace": string(ws), "server": "127.0.0.1:1", "security": "none",
			"username": "feedback@example.com", "password": "s3cret"}
	}})
}
