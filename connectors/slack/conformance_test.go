package slack

import (
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: "slack", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "acme-slack", "workspace": string(ws), "signing_secret": "s3cret"}
	}})
}
