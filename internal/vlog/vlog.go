// Package vlog writes log/slog records as Open vSwitch's vlog module does,
// so that a northd's log reads like ovn-northd's to operators and to OVN's
// tests: per module and destination (console, syslog, file) levels set
// with vlog specs ("console:off", "file:info", "jsonrpc:dbg",
// "MODULE:DEST:LEVEL"), the file line
//
//	2026-12-01T21:00:00.123Z|00001|northd|INFO|message key=value
//
// and the console line with a timestamp to the second, a log file that
// logrotate's "vlog/reopen" reopens, and rate limiting of repeated
// messages.
//
// A Vlog is the configuration; Handler gives the slog.Handler of one
// module. Records are mapped to levels as slog.LevelDebug → DBG, Info →
// INFO, Warn → WARN, Error → ERR, above Error → EMER.
package vlog

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"log/syslog"
	"maps"
	"math"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/northlog/northlog/internal/unixctl"
)

// Level is a vlog level.
type Level int

// The vlog levels, least to most verbose.
const (
	Off Level = iota
	Emer
	Err
	Warn
	Info
	Dbg
)

var levelNames = []string{"OFF", "EMER", "ERR", "WARN", "INFO", "DBG"}

func (l Level) String() string { return levelNames[l] }

// levelOf is the vlog level of an slog level.
func levelOf(l slog.Level) Level {
	switch {
	case l < slog.LevelInfo:
		return Dbg
	case l < slog.LevelWarn:
		return Info
	case l < slog.LevelError:
		return Warn
	case l == slog.LevelError:
		return Err
	}
	return Emer
}

// Destination is where records go.
type Destination int

// The destinations, in vlog/list's order.
const (
	Console Destination = iota
	Syslog
	File
	nDestinations
)

var destinationNames = []string{"console", "syslog", "file"}

// rateLimit is how often one message (by module and text, without its
// attributes) may be logged:
// a burst of rateBurst, then one per rateInterval. OVS rate-limits the
// call sites that ask for it; here it is every message at INFO or above,
// so that a flood of one warning (a bad NB row repeated) stays readable.
const (
	rateBurst    = 10
	rateInterval = 6 * time.Second
)

// limiter is a token bucket for one message, with the count dropped.
type limiter struct {
	tokens  float64
	last    time.Time
	dropped int
	first   time.Time // of the drops
	latest  time.Time
}

// Vlog holds the levels, the destinations and the log file.
type Vlog struct {
	mu       sync.Mutex
	modules  map[string]*[nDestinations]Level
	noLimit  map[string]bool // modules whose rate limiting is disabled
	limiters map[string]*limiter
	seq      int
	console  io.Writer
	fileName string
	file     *os.File
	syslog   syslogSink
	target   net.Conn // --syslog-target's, nil when not set
	host     string   // the hostname in the target's lines
	program  string
	now      func() time.Time
}

// New makes a Vlog for program (the syslog tag) with the given modules,
// every destination at INFO as in OVS; console output goes to console.
func New(program string, console io.Writer, modules ...string) *Vlog {
	v := &Vlog{modules: map[string]*[nDestinations]Level{}, noLimit: map[string]bool{},
		limiters: map[string]*limiter{}, console: console, program: program, now: time.Now}
	for _, m := range modules {
		v.modules[m] = &[nDestinations]Level{Info, Info, Info}
	}
	return v
}

// Set applies a vlog spec as OVS's -v and vlog/set do: words separated
// by spaces, commas or colons, naming at most one module, one destination
// and one level ("ANY" is any); a missing module or destination means
// all of them, a missing level DBG. "PATTERN:..." and "FACILITY:..." are
// refused. The error says which part is bad.
func (v *Vlog) Set(spec string) error {
	words := strings.FieldsFunc(spec, func(r rune) bool { return strings.ContainsRune(" ,:\t", r) })
	if len(words) > 0 && (strings.EqualFold(words[0], "PATTERN") || strings.EqualFold(words[0], "FACILITY")) {
		return fmt.Errorf("%s: log patterns and syslog facilities are not supported", words[0])
	}
	module, dest, level := "", Destination(-1), Level(-1)
	for _, w := range words {
		switch {
		case strings.EqualFold(w, "ANY"):
		case index(destinationNames, w) >= 0:
			if dest >= 0 {
				return fmt.Errorf("cannot specify multiple destinations")
			}
			dest = Destination(index(destinationNames, w))
		case index(levelNames, w) >= 0:
			if level >= 0 {
				return fmt.Errorf("cannot specify multiple levels")
			}
			level = Level(index(levelNames, w))
		case v.hasModule(w):
			if module != "" {
				return fmt.Errorf("cannot specify multiple modules")
			}
			module = w
		default:
			return fmt.Errorf("no destination, level, or module %q", w)
		}
	}
	if level < 0 {
		level = Dbg
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for name, levels := range v.modules {
		if module != "" && name != module {
			continue
		}
		for d := range nDestinations {
			if dest < 0 || d == dest {
				levels[d] = level
			}
		}
	}
	return nil
}

func index(names []string, w string) int {
	return slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, w) })
}

func (v *Vlog) hasModule(name string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, ok := v.modules[name]
	return ok
}

// SetLogFile logs to file name (created or appended to) from now on.
func (v *Vlog) SetLogFile(name string) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file != nil {
		v.file.Close()
	}
	v.fileName, v.file = name, f
	return nil
}

// Reopen closes and reopens the log file, as after logrotate moved it.
func (v *Vlog) Reopen() error {
	v.mu.Lock()
	name := v.fileName
	v.mu.Unlock()
	if name == "" {
		return fmt.Errorf("Logging to file not configured")
	}
	return v.SetLogFile(name)
}

// CloseLogFile closes the log file; file output stops until Reopen.
func (v *Vlog) CloseLogFile() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.file != nil {
		v.file.Close()
		v.file = nil
	}
}

// SetConsole sends console output to w (nil: none), as after a daemon
// detached from its terminal.
func (v *Vlog) SetConsole(w io.Writer) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.console = w
}

// SetRateLimit enables or disables rate limiting of modules (all when
// none is named); it fails on an unknown module.
func (v *Vlog) SetRateLimit(enable bool, modules ...string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(modules) == 0 {
		modules = slices.Collect(maps.Keys(v.modules))
	}
	for _, m := range modules {
		if _, ok := v.modules[m]; !ok {
			return fmt.Errorf("no module named %s", m)
		}
	}
	for _, m := range modules {
		v.noLimit[m] = !enable
	}
	return nil
}

// List is vlog/list's table.
func (v *Vlog) List() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var b strings.Builder
	b.WriteString("                 console    syslog    file\n")
	b.WriteString("                 -------    ------    ------\n")
	for _, m := range slices.Sorted(maps.Keys(v.modules)) {
		l := v.modules[m]
		fmt.Fprintf(&b, "%-16s  %4s       %4s       %4s", m, l[Console], l[Syslog], l[File])
		if v.noLimit[m] {
			b.WriteString("    (rate limiting disabled)")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// enabled reports whether module logs level anywhere.
func (v *Vlog) enabled(module string, level Level) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	l := v.modules[module]
	return l != nil && slices.Max(l[:]) >= level
}

// write logs one message; key is its text without the attributes, which
// rate limiting counts by (as OVS counts by call site).
func (v *Vlog) write(module string, level Level, t time.Time, key, msg string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	l := v.modules[module]
	if l == nil {
		return
	}
	if level <= Info && !v.noLimit[module] {
		var note string
		if !v.allow(module+"|"+key, t, &note) {
			return
		}
		if note != "" {
			v.emit(module, level, l, t, note)
		}
	}
	v.emit(module, level, l, t, msg)
}

// emit writes one line to each destination that takes level.
func (v *Vlog) emit(module string, level Level, l *[nDestinations]Level, t time.Time, msg string) {
	v.seq++
	head := fmt.Sprintf("%05d|%s|%s|%s", v.seq, module, level, msg)
	if l[Console] >= level && v.console != nil {
		fmt.Fprintf(v.console, "%s|%s\n", t.UTC().Format("2006-01-02T15:04:05Z"), head)
	}
	if l[File] >= level && v.file != nil {
		fmt.Fprintf(v.file, "%s|%s\n", t.UTC().Format("2006-01-02T15:04:05.000Z"), head)
	}
	if l[Syslog] >= level {
		v.toSyslog(level, module, t, msg, "ovs|"+head)
	}
}

// syslogSink is where syslog lines go, as OVS's --syslog-method: the local
// syslog through log/syslog ("libc", dialled at the first line), a socket
// that gets "<PRI>line" ("unix:FILE", "udp:IP:PORT"), or nowhere ("null",
// or a socket that could not be opened, which OVS does not report either).
type syslogSink struct {
	method string
	local  *syslog.Writer
	dialed bool
	direct net.Conn
}

// syslogPriority is the syslog severity of each level, as OVS maps them.
var syslogPriority = map[Level]syslog.Priority{Emer: syslog.LOG_ALERT, Err: syslog.LOG_ERR,
	Warn: syslog.LOG_WARNING, Info: syslog.LOG_NOTICE, Dbg: syslog.LOG_DEBUG}

// SetSyslog sets where syslog lines go, as OVS's --syslog-method and
// --syslog-target: method "libc" (the default: the local syslog), "null",
// "unix:FILE" or "udp:IP[:PORT]" (the line with its priority as the whole
// datagram, port 514 by default); target "IP:PORT", when not empty, also
// gets every syslog line in RFC 5424's format. An unknown method is an
// error, as in OVS.
func (v *Vlog) SetSyslog(method, target string) error {
	sink := syslogSink{method: cmp.Or(method, "libc")}
	switch kind, addr, _ := strings.Cut(sink.method, ":"); {
	case sink.method == "libc" || sink.method == "null":
	case kind == "unix":
		sink.direct, _ = net.Dial("unixgram", addr)
	case kind == "udp":
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(addr, "514")
		}
		sink.direct, _ = net.Dial("udp", addr)
	default:
		return fmt.Errorf("unsupported syslog method '%s'", method)
	}
	var conn net.Conn
	host, _ := os.Hostname()
	if target != "" {
		var err error
		if conn, err = net.Dial("udp", target); err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.syslog, v.target, v.host = sink, conn, host
	return nil
}

// toSyslog writes one syslog line (OVS's syslog pattern,
// "ovs|SEQ|MODULE|LEVEL|message") to the syslog method's sink, and msg in
// RFC 5424's format to the target, if any.
func (v *Vlog) toSyslog(level Level, module string, t time.Time, msg, line string) {
	prio := syslogPriority[level]
	switch s := &v.syslog; {
	case s.direct != nil:
		fmt.Fprintf(s.direct, "<%d>%s", syslog.LOG_DAEMON|prio, line)
	case s.method == "libc" || s.method == "":
		if !s.dialed {
			s.dialed = true
			s.local, _ = syslog.New(syslog.LOG_DAEMON|syslog.LOG_INFO, v.program)
		}
		if s.local != nil {
			localWrite[prio](s.local, line)
		}
	}
	if v.target != nil {
		fmt.Fprintf(v.target, "<%d>1 %s %s %s %d %s - \ufeff%s", syslog.LOG_LOCAL0|prio,
			t.UTC().Format("2006-01-02T15:04:05.000Z"), v.host, v.program, os.Getpid(), module, msg)
	}
}

// localWrite writes a line to the local syslog at each severity.
var localWrite = map[syslog.Priority]func(*syslog.Writer, string) error{
	syslog.LOG_ALERT: (*syslog.Writer).Alert, syslog.LOG_ERR: (*syslog.Writer).Err,
	syslog.LOG_WARNING: (*syslog.Writer).Warning, syslog.LOG_NOTICE: (*syslog.Writer).Notice,
	syslog.LOG_DEBUG: (*syslog.Writer).Debug,
}

// allow takes a token for key; when messages were dropped before this
// one, note is OVS's line saying how many.
func (v *Vlog) allow(key string, t time.Time, note *string) bool {
	lim := v.limiters[key]
	if lim == nil {
		lim = &limiter{tokens: rateBurst, last: t}
		v.limiters[key] = lim
	}
	lim.tokens = min(rateBurst, lim.tokens+float64(t.Sub(lim.last))/float64(rateInterval))
	lim.last = t
	if lim.tokens < 1 {
		if lim.dropped == 0 {
			lim.first = t
		}
		lim.dropped++
		lim.latest = t
		return false
	}
	lim.tokens--
	if lim.dropped > 0 {
		*note = fmt.Sprintf("Dropped %d log messages in last %d seconds (most recently, %d seconds ago) due to excessive rate",
			lim.dropped, int(t.Sub(lim.first).Seconds()), int(t.Sub(lim.latest).Seconds()))
		lim.dropped = 0
	}
	return true
}

// Handler is the slog.Handler of module, which must be one of New's.
func (v *Vlog) Handler(module string) slog.Handler {
	return &handler{v: v, module: module}
}

// handler formats a record as its message followed by its attributes in
// slog's text form (key=value, quoted when needed).
type handler struct {
	v      *Vlog
	module string
	attrs  string // preformatted, each with a leading space
	group  string
}

func (h *handler) Enabled(_ context.Context, l slog.Level) bool {
	return h.v.enabled(h.module, levelOf(l))
}

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.group, a)
		return true
	})
	h.v.write(h.module, levelOf(r.Level), h.v.now(), r.Message, b.String())
	return nil
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	for _, a := range as {
		appendAttr(&b, h.group, a)
	}
	n := *h
	n.attrs += b.String()
	return &n
}

func (h *handler) WithGroup(name string) slog.Handler {
	n := *h
	n.group += name + "."
	return &n
}

// appendAttr writes " key=value", as slog's text handler would.
func appendAttr(b *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, g := range a.Value.Group() {
			appendAttr(b, group+a.Key+".", g)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(group + a.Key)
	b.WriteByte('=')
	s := a.Value.String()
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		s = fmt.Sprintf("%q", s)
	}
	b.WriteString(s)
}

// Register adds OVS's vlog commands to ctl: vlog/set, vlog/list,
// vlog/reopen, vlog/close, vlog/enable-rate-limit and
// vlog/disable-rate-limit.
func (v *Vlog) Register(ctl *unixctl.Server) {
	ctl.Register("vlog/set", "{spec | PATTERN:destination:pattern}", 0, math.MaxInt, func(args []string) (string, error) {
		if len(args) == 0 {
			args = []string{""}
		}
		for _, a := range args {
			if err := v.Set(a); err != nil {
				return "", err
			}
		}
		return "", nil
	})
	ctl.Register("vlog/list", "", 0, 0, func([]string) (string, error) { return v.List(), nil })
	ctl.Register("vlog/reopen", "", 0, 0, func([]string) (string, error) { return "", v.Reopen() })
	ctl.Register("vlog/close", "", 0, 0, func([]string) (string, error) {
		v.CloseLogFile()
		return "", nil
	})
	ctl.Register("vlog/enable-rate-limit", "[module]...", 0, math.MaxInt, func(args []string) (string, error) {
		return "", v.SetRateLimit(true, args...)
	})
	ctl.Register("vlog/disable-rate-limit", "[module]...", 0, math.MaxInt, func(args []string) (string, error) {
		return "", v.SetRateLimit(false, args...)
	})
}
