package daemon

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/internal/queueworker"
	"github.com/feedbridge/feedbridge/notify"
)

// notifier ties closing the loop to the daemon: the service's policy and the sender's settings follow the
// configuration, and one queue worker per channel sends what moves queue.
type notifier struct {
	svc *core.Service
	n   *notify.Notifier
}

// startNotify sets the policy and starts the workers of both channels on wg until ctx ends.
func startNotify(ctx context.Context, wg *sync.WaitGroup, cfg *config.Config, svc *core.Service, q core.Queue,
	holder string, reg prometheus.Registerer, log *logrus.Entry) (*notifier, error) {
	m, err := notify.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	s := notify.FromConfig(cfg)
	nt := &notifier{svc: svc, n: notify.New(s, notify.Options{})}
	svc.SetNotify(s.Policy())
	for _, queue := range []string{core.NotifyQueueSlack, core.NotifyQueueEmail} {
		w, err := queueworker.New(q, nt.n.Handle, queueworker.Config{Queue: queue, Holder: holder + ":" + queue,
			Concurrency: 2, Observer: m, Log: log.WithField("queue", queue)})
		if err != nil {
			return nil, err
		}
		wg.Go(func() { w.Run(ctx) })
	}
	return nt, nil
}

// apply takes a reloaded configuration: moves from now on queue by its policy, and queued messages are
// sent with its settings.
func (nt *notifier) apply(cfg *config.Config) {
	s := notify.FromConfig(cfg)
	nt.n.Apply(s)
	nt.svc.SetNotify(s.Policy())
}
