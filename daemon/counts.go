package daemon

import (
	"context"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/core"
)

// countFlushEvery is how often the connectors' per-day counts are written: the connectors page is that
// far behind the items other replicas took (this process's own are shown at once).
const countFlushEvery = 5 * time.Second

// flushCounts writes the connectors' counts every countFlushEvery until ctx ends; counts a failed write
// could not store are kept for the next one.
func flushCounts(ctx context.Context, svc *core.Service, log *logrus.Entry) {
	for connectors.Sleep(ctx, countFlushEvery) {
		if err := svc.FlushConnectorCounts(ctx); err != nil && ctx.Err() == nil {
			log.WithError(err).Warn("connector counts not written; kept for the next flush")
		}
	}
}

// finalFlush writes what is left at shutdown, after the connectors stopped.
func finalFlush(svc *core.Service, log *logrus.Entry) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := svc.FlushConnectorCounts(ctx); err != nil {
		log.WithError(err).Warn("connector counts of the last seconds not written")
	}
}
