package gateway

import (
	"context"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/pdk/abi"
)

// Metrics are the gateway's Prometheus metrics, in a registry of their own
// (served at /metrics on a separate address).
type Metrics struct {
	reg       *prometheus.Registry
	calls     *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	decisions *prometheus.CounterVec
	stageErrs *prometheus.CounterVec
	backends  *prometheus.GaugeVec
}

// NewMetrics registers the gateway's metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcphost_gateway_calls_total", Help: "Tool calls through the gateway, by server, tool and outcome (ok, tool_error, denied, error, cancelled).",
		}, []string{"server", "tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mcphost_gateway_call_duration_seconds", Help: "Duration of tool calls through the gateway, pipeline included.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"server"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcphost_policy_decisions_total", Help: "Decisions of the pipeline's stages, by stage, hook and outcome.",
		}, []string{"stage", "hook", "outcome"}),
		stageErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcphost_stage_errors_total", Help: "Errors of the pipeline's stages (plugins), by stage and hook.",
		}, []string{"stage", "hook"}),
		backends: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mcphost_backend_state", Help: "1 for each backend's current state.",
		}, []string{"server", "state"}),
	}
	m.reg.MustRegister(m.calls, m.latency, m.decisions, m.stageErrs, m.backends,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveStage counts a stage's decision (a host.WithAudit callback).
func (m *Metrics) ObserveStage(ev host.AuditEvent) {
	if m == nil {
		return
	}
	outcome := ev.Outcome
	if len(outcome) > 4 && outcome[:4] == "kept" {
		outcome = "kept" // "kept 3/5": no unbounded label values
	}
	m.decisions.WithLabelValues(ev.Stage, string(ev.Hook), outcome).Inc()
	if ev.Err != "" {
		m.stageErrs.WithLabelValues(ev.Stage, string(ev.Hook)).Inc()
	}
}

// ObserveBackends sets the backends' state gauges.
func (m *Metrics) ObserveBackends(h *host.Host) {
	if m == nil {
		return
	}
	m.backends.Reset()
	for _, st := range h.Status() {
		m.backends.WithLabelValues(st.ID, string(st.State)).Set(1)
	}
}

func (m *Metrics) observeCall(server, tool, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.calls.WithLabelValues(server, tool, outcome).Inc()
	m.latency.WithLabelValues(server).Observe(d.Seconds())
}

// outcomeOf classifies a call's end for metrics and the audit log.
func outcomeOf(res *mcp.CallToolResult, err error) string {
	switch {
	case err == nil && res != nil && res.IsError:
		return "tool_error"
	case err == nil:
		return "ok"
	case errors.Is(err, host.ErrDenied):
		return "denied"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "error"
}

// AuditRecord is one line of the audit log: who called what, what the
// pipeline decided and how it ended. Arguments only when configured.
type AuditRecord struct {
	Time       time.Time      `json:"time"`
	Caller     string         `json:"caller,omitempty"`
	ClientID   string         `json:"client_id,omitempty"`
	Session    string         `json:"session,omitempty"`
	Server     string         `json:"server"`
	Tool       string         `json:"tool"`
	Decision   string         `json:"decision"` // allow or deny
	Outcome    string         `json:"outcome"`  // ok, tool_error, denied, error, cancelled
	DurationMS float64        `json:"duration_ms"`
	Error      string         `json:"error,omitempty"`
	Arguments  map[string]any `json:"arguments,omitempty"`
}

// AuditLog writes AuditRecords as JSON lines to a file it rotates: when
// it passes MaxBytes it becomes FILE.1 (FILE.1 becomes FILE.2, ... up to
// Keep files).
type AuditLog struct {
	Path      string
	MaxBytes  int64 // default 100 MiB
	Keep      int   // rotated files kept (default 5)
	Arguments bool  // also log argument values

	mu   sync.Mutex
	f    *os.File
	size int64
}

// ObservePin writes a line for a tool whose pin state became new or
// changed (a host.WithAudit callback; other decisions are the calls'
// lines). Its Decision is "pin", its Outcome the state.
func (l *AuditLog) ObservePin(ev host.AuditEvent) {
	if l == nil || ev.Stage != "pinning" || ev.Hook != "tools/list" {
		return
	}
	_ = l.Write(AuditRecord{Time: time.Now(), Server: ev.Server, Tool: ev.Tool, Decision: "pin", Outcome: ev.Outcome, Error: ev.Reason})
}

// Write appends one record.
func (l *AuditLog) Write(r AuditRecord) error {
	if l == nil {
		return nil
	}
	if !l.Arguments {
		r.Arguments = nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		if err := l.open(); err != nil {
			return err
		}
	}
	max := l.MaxBytes
	if max <= 0 {
		max = 100 << 20
	}
	if l.size+int64(len(line)) > max && l.size > 0 {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	return err
}

func (l *AuditLog) open() error {
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, st.Size()
	return nil
}

func (l *AuditLog) rotate() error {
	l.f.Close()
	l.f = nil
	keep := l.Keep
	if keep <= 0 {
		keep = 5
	}
	os.Remove(fmt.Sprintf("%s.%d", l.Path, keep))
	for i := keep - 1; i >= 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", l.Path, i), fmt.Sprintf("%s.%d", l.Path, i+1))
	}
	if err := os.Rename(l.Path, l.Path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return l.open()
}

// Close closes the file.
func (l *AuditLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

var _ io.Closer = (*AuditLog)(nil)

// record builds the audit record of one call.
func record(c abi.Caller, server, tool string, args map[string]any, start time.Time, outcome string, err error) AuditRecord {
	r := AuditRecord{Time: start.UTC(), Caller: c.ID, ClientID: c.ClientID, Session: c.Session, Server: server, Tool: tool,
		Decision: "allow", Outcome: outcome, DurationMS: float64(time.Since(start).Microseconds()) / 1000, Arguments: args}
	if outcome == "denied" {
		r.Decision = "deny"
	}
	if err != nil {
		msg := err.Error()
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		r.Error = msg
	}
	return r
}
