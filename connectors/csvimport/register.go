package csvimport

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
)

// sweepEvery is how often the daemon closes import runs whose process stopped (their lease has gone
// stale), in every workspace.
const sweepEvery = time.Minute

func init() {
	connectors.Register(connectors.Kind{
		Name:    Kind,
		Summary: "Scheduled import of CSV files from a local glob or an https:// address; each row becomes a record once.",
		Config:  func() any { return &Config{} },
		Build:   Build,
		Sweep: func(ctx context.Context, svc connectors.Service, log *logrus.Entry) {
			SweepAbandoned(ctx, svc, sweepEvery, log)
		},
	})
}
