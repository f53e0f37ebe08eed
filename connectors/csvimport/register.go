package csvimport

import "github.com/feedbridge/feedbridge/connectors"

func init() {
	connectors.Register(connectors.Kind{
		Name:    "csv",
		Summary: "Scheduled import of CSV files from a local glob or an https:// address; each row becomes a record once.",
		Config:  func() any { return &Config{} },
		Build:   Build,
	})
}
