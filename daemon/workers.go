package daemon

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/sirupsen/logrus"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/insights"
)

// newWorkers builds the insight pool for the configured provider; nil when insights are off (jobs then stay
// queued, durably, until a daemon with a provider drains them).
func newWorkers(cfg *config.Config, st core.Store, faults *core.Faults, reg prometheus.Registerer, log *logrus.Entry) (*insights.Pool, error) {
	ex, err := insights.FromConfig(cfg.Insights.Provider, insights.OpenAIConfig{
		BaseURL: cfg.Insights.OpenAI.BaseURL, APIKey: cfg.Insights.OpenAI.APIKey, Model: cfg.Insights.OpenAI.Model,
		Timeout: cfg.Insights.OpenAI.Timeout,
	})
	if err != nil {
		return nil, err
	}
	if ex == nil {
		log.Info("insights: provider off; feedback stays queued")
		return nil, nil
	}
	return insights.NewPool(st, ex, insights.PoolConfig{
		Workers:     cfg.Insights.Workers,
		MaxAttempts: core.DefaultJobAttempts,
		Log:         log,
		Metrics:     reg,
		Faults:      faults,
	})
}

// observers fans record-created events out to several listeners (metrics, the insight pool).
type observers []core.Observer

func (o observers) RecordCreated(source string, t core.RecordType) {
	for _, x := range o {
		x.RecordCreated(source, t)
	}
}
