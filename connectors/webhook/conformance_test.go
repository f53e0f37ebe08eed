package webhook

import (
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: Kind, Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "crm", "workspace": string(ws), "secret": "s3cret",
			"mapping": map[string]any{"title": "title", "external_id": "id"}}
	}})
}
