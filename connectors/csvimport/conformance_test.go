package csvimport

import (
	"path/filepath"
	"testing"

	"github.com/feedbridge/feedbridge/connectors/connectortest"
	"github.com/feedbridge/feedbridge/core"
)

func TestConformance(t *testing.T) {
	connectortest.Run(t, connectortest.Case{Kind: "csv", Entry: func(t testing.TB, ws core.ID, dir string) map[string]any {
		return map[string]any{"name": "nightly", "workspace": string(ws), "schedule": "0 2 * * *",
			"path": filepath.Join(dir, "in", "*.csv"), "archive_dir": filepath.Join(dir, "done")}
	}})
}
