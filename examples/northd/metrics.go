package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/northlog/northlog/ovsdb"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveMetrics serves Prometheus metrics on addr until ctx ends, and
// returns the step callback that records them: the engine's and the SB
// transaction's latency per step, SB rows written, and the number of
// logical flows.
func serveMetrics(ctx context.Context, addr string, log *slog.Logger) (func(ovsdb.StepStats), error) {
	reg := prometheus.NewRegistry()
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
		return nil, err
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
	}, nil
}
