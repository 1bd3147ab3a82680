package serve

import (
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the service's Prometheus metrics, in a registry of its own
// (no global state: two servers in one process count apart).
type metrics struct {
	reg            *prometheus.Registry
	decisions      *prometheus.CounterVec
	latency        prometheus.Histogram
	reloads        prometheus.Counter
	reloadFailures prometheus.Counter
	policyOK       prometheus.Gauge
	created        prometheus.Counter
	answered       *prometheus.CounterVec
	expired        prometheus.Counter
	consumed       prometheus.Counter
	logErrors      prometheus.Counter
	pruned         prometheus.Counter
	webhookErrors  prometheus.Counter
	// webhookAttempts counts HTTP requests, webhookDeliveries deliveries
	// by result (one delivery makes one or more attempts).
	webhookAttempts   prometheus.Counter
	webhookDeliveries *prometheus.CounterVec
	// webhookResumed counts deliveries taken up from the store.
	webhookResumed prometheus.Counter
	pending        atomic.Int64
	// deliveriesPending is the number of stored pending deliveries, every
	// replica's, as of the last sweep.
	deliveriesPending atomic.Int64
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolgate_decisions_total", Help: "Decisions made, by outcome and the kind of the deciding reason.",
	}, []string{"outcome", "kind"})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "toolgate_decision_duration_seconds", Help: "Time to decide one call, approvals included.",
		Buckets: []float64{25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3},
	})
	m.reloads = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_policy_reloads_total", Help: "Policy reloads that took effect."})
	m.reloadFailures = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_policy_reload_failures_total", Help: "Policy reloads that failed; the old policy stayed."})
	m.policyOK = prometheus.NewGauge(prometheus.GaugeOpts{Name: "toolgate_policy_healthy", Help: "1 when the last policy load succeeded, 0 when the files in force are broken."})
	m.created = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_approvals_created_total", Help: "Approval requests recorded."})
	m.answered = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_approvals_answered_total", Help: "Approvals answered, by answer."}, []string{"answer"})
	m.expired = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_approvals_expired_total", Help: "Approvals that expired unanswered or unused."})
	m.consumed = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_approvals_used_total", Help: "Approved calls that ran."})
	m.logErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_decision_log_errors_total", Help: "Decision log entries that could not be written."})
	m.pruned = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_decision_log_pruned_total", Help: "Decision log entries deleted by the retention window."})
	m.webhookErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_webhook_errors_total", Help: "Webhook deliveries that failed: rejected, exhausted, or no request could be built."})
	m.webhookAttempts = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_webhook_attempts_total", Help: "Webhook requests sent, retries included."})
	m.webhookDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "toolgate_webhook_deliveries_total",
		Help: "Webhook deliveries ended on this replica, by result: delivered, rejected (an answer not retried), exhausted (out of attempts or time), obsolete (not sent: the approval was answered, expired or deleted first), shutdown (left pending in the store), failed (no request could be built)."},
		[]string{"result"})
	m.webhookResumed = prometheus.NewCounter(prometheus.CounterOpts{Name: "toolgate_webhook_deliveries_resumed_total",
		Help: "Pending webhook deliveries this replica took up from the store: left by a restart, a replica that stopped, or a full queue."})
	for _, r := range deliveryResults {
		m.webhookDeliveries.WithLabelValues(r) // every result shows, at 0 until it happens
	}
	pending := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toolgate_approvals_pending", Help: "Approvals waiting for an answer (as of the last sweep)."},
		func() float64 { return float64(m.pending.Load()) })
	deliveriesPending := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toolgate_webhook_deliveries_pending",
		Help: "Webhook deliveries in the store not yet delivered or given up, every replica's (as of the last sweep)."},
		func() float64 { return float64(m.deliveriesPending.Load()) })
	m.reg.MustRegister(m.decisions, m.latency, m.reloads, m.reloadFailures, m.policyOK, m.created, m.answered,
		m.expired, m.consumed, m.logErrors, m.pruned, m.webhookErrors, m.webhookAttempts, m.webhookDeliveries,
		m.webhookResumed, pending, deliveriesPending,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
