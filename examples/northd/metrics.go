package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/northlog/northlog/ovsdb"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveMetrics serves Prometheus metrics on addr until ctx ends, and
// returns the step callback that records them (the engine's and the SB
// transaction's latency per step, SB rows written, and the number of
// logical flows) and the collector of the northd's lock and connections,
// which reports once given the northd; Go's and the process's standard
// metrics come with them.
func serveMetrics(ctx context.Context, addr string, log *slog.Logger) (func(ovsdb.StepStats), *statusCollector, error) {
	reg := prometheus.NewRegistry()
	status := &statusCollector{}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), status)
	buckets := prometheus.ExponentialBuckets(0.0001, 2, 18) // 100µs .. 13 s
	engine := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "northlog_engine_step_seconds", Help: "Time the rules program took per step.", Buckets: buckets})
	txn := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "northlog_sb_transaction_seconds", Help: "Time of each SB transaction, request to reply.", Buckets: buckets})
	rows := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "northlog_sb_rows_written_total", Help: "SB rows written, by table and operation."}, []string{"table", "op"})
	failures := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "northlog_sb_transaction_failures_total", Help: "SB transactions that failed (and were retried)."})
	flows := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "northlog_logical_flows", Help: "Logical flows computed, one per datapath (before datapath groups)."})
	reg.MustRegister(engine, txn, rows, failures, flows)

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("serving metrics", "address", ln.Addr().String())
	return func(st ovsdb.StepStats) {
		flows.Set(float64(st.Flows))
		if st.NBRows > 0 {
			engine.Observe(st.Engine.Seconds())
		}
		if st.Err != nil {
			failures.Inc()
			return
		}
		if st.SB != nil {
			txn.Observe(st.SBTxn.Seconds())
		}
		for table, n := range st.SB {
			for i, op := range []string{"insert", "update", "delete"} {
				rows.WithLabelValues(table, op).Add(float64(n[i]))
			}
		}
	}, status, nil
}

var (
	activeDesc = prometheus.NewDesc("northlog_sb_lock_held",
		"1 when this northd owns the SB's ovn_northd lock and writes, 0 on standby.", nil, nil)
	connectedDesc = prometheus.NewDesc("northlog_db_connected",
		"1 for the database member the northd is connected to.", []string{"database", "member"}, nil)
	connectsDesc = prometheus.NewDesc("northlog_db_connects_total",
		"Connections made to the database since start; all but the first are reconnections.", []string{"database"}, nil)
)

// statusCollector reports ovsdb.Northd.Connections at each scrape.
type statusCollector struct {
	northd atomic.Pointer[ovsdb.Northd]
}

// Describe implements prometheus.Collector.
func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- activeDesc
	ch <- connectedDesc
	ch <- connectsDesc
}

// Collect implements prometheus.Collector.
func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	d := c.northd.Load()
	if d == nil {
		return
	}
	st := d.Connections()
	active := 0.0
	if st.Active {
		active = 1
	}
	ch <- prometheus.MustNewConstMetric(activeDesc, prometheus.GaugeValue, active)
	for db, cs := range map[string]ovsdb.ConnStatus{"OVN_Northbound": st.NB, "OVN_Southbound": st.SB} {
		if cs.Member != "" {
			ch <- prometheus.MustNewConstMetric(connectedDesc, prometheus.GaugeValue, 1, db, cs.Member)
		}
		ch <- prometheus.MustNewConstMetric(connectsDesc, prometheus.CounterValue, float64(cs.Connects), db)
	}
}
