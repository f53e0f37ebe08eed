package email

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the per-mailbox series; label values are the entry name and the mailbox.
type metrics struct {
	fetched     *prometheus.CounterVec
	created     *prometheus.CounterVec
	skipped     *prometheus.CounterVec // plus a reason label: a skip reason or "duplicate"
	failed      *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec
}

// SkipDuplicate is the skip reason of a message whose Message-ID (or fallback key) was already a record.
const SkipDuplicate = "duplicate"

func newMetrics(reg prometheus.Registerer) *metrics {
	labels := []string{"connector", "mailbox"}
	m := &metrics{
		fetched: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_email_messages_fetched_total", Help: "Messages fetched from the mailbox.",
		}, labels),
		created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_email_records_created_total", Help: "Feedback records created from messages.",
		}, labels),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_email_messages_skipped_total", Help: "Messages that made no record, by reason (auto-replies, bounces, duplicates).",
		}, append(labels, "reason")),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedbridge_email_messages_failed_total", Help: "Messages that could not be parsed or stored.",
		}, labels),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "feedbridge_email_last_success_timestamp_seconds", Help: "Unix time of the last poll that completed without error.",
		}, labels),
	}
	if reg == nil {
		return m
	}
	m.fetched = register(reg, m.fetched)
	m.created = register(reg, m.created)
	m.skipped = register(reg, m.skipped)
	m.failed = register(reg, m.failed)
	m.lastSuccess = register(reg, m.lastSuccess)
	return m
}

// register adds c to reg, or returns the collector already registered under its name (a second Build of the
// email kind in one process, as `config check` and tests do).
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
	}
	return c
}

// mailboxMetrics are one mailbox's series, resolved once.
type mailboxMetrics struct {
	fetched, created, failed prometheus.Counter
	lastSuccess              prometheus.Gauge
	skipped                  *prometheus.CounterVec
	name, mailbox            string
}

func (m *metrics) forMailbox(name, mailbox string) *mailboxMetrics {
	mm := &mailboxMetrics{
		fetched:     m.fetched.WithLabelValues(name, mailbox),
		created:     m.created.WithLabelValues(name, mailbox),
		failed:      m.failed.WithLabelValues(name, mailbox),
		lastSuccess: m.lastSuccess.WithLabelValues(name, mailbox),
		skipped:     m.skipped,
		name:        name,
		mailbox:     mailbox,
	}
	for _, r := range append(SkipReasons, SkipDuplicate) {
		m.skipped.WithLabelValues(name, mailbox, r) // every reason shows up as 0 before it first happens
	}
	return mm
}

func (mm *mailboxMetrics) skip(reason string) {
	mm.skipped.WithLabelValues(mm.name, mm.mailbox, reason).Inc()
}
