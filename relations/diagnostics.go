package relations

import (
	"cmp"
	"log/slog"

	"github.com/northlog/northlog/engine"
)

// Diagnostic is a line northd logs about an NB configuration it reads but
// does not skip as malformed: a bad configuration it works around, a
// setting with a surprising effect. Unlike a rejection (engine.Rejected,
// logged as "NB row skipped" with the row), its text is northd's own
// line, which OVN's tests grep; a live northd logs it, at Level, when it
// appears.
type Diagnostic struct {
	Level slog.Level
	Text  string
}

// CompareDiagnostics orders diagnostics by text, then level.
func CompareDiagnostics(a, b Diagnostic) int {
	return cmp.Or(cmp.Compare(a.Text, b.Text), cmp.Compare(a.Level, b.Level))
}

// Warning is a diagnostic at WARN.
func Warning(text string) Diagnostic { return Diagnostic{Level: slog.LevelWarn, Text: text} }

// Diagnose adds d to the diagnostics the program logs (Diagnostics).
func (n *NB) Diagnose(d engine.Rel[Diagnostic]) { n.diagnostics = append(n.diagnostics, d) }

// Diagnostics are the diagnostics added with Diagnose, as one relation;
// call it once every rule is built.
func (n *NB) Diagnostics() engine.Rel[Diagnostic] {
	return engine.Distinct(engine.Union(n.diagnostics...))
}
