package email

import (
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

// newMetrics makes and registers the kind's metrics; connectors.Metrics calls it once per registry.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
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
	for _, c := range []prometheus.Collector{m.fetched, m.created, m.skipped, m.failed, m.lastSuccess} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
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
