package reference

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// Trace runs 23.03's ovn-trace against the SB database at sbRemote: microflow (an
// expression in ovn-trace's syntax, such as `inport == "vm1" && eth.src ==
// ... && tcp.dst == 80`) enters datapath (a datapath's name, or "" to let
// ovn-trace find it from the microflow's inport), and opts are ovn-trace
// options placed before them: the output form (--minimal, --summary,
// --detailed), --ct=FLAGS once per conntrack action the packet crosses,
// --lb-dst=IP[:PORT] for the backend a ct_lb_mark picks.
//
// The result is ovn-trace's output with what any valid SB may choose
// replaced by fixed words, so two SBs that treat the packet alike give the
// same text: tunnel keys in the microflow line ("# tcp,reg14=0x2,..." gives
// "reg14=KEY") and in ct_mark.ecmp_reply_port assignments become KEY, row
// UUIDs (and the short "uuid 1a2b3c4d" of --detailed) become UUID. Warnings
// ovn-trace logs while it reads the SB, such as a flow whose match names an
// address set or port group the SB lacks (ovn-trace then leaves that flow
// out), follow the output as "warning: MESSAGE" lines, sorted and each
// once, normalised alike.
//
// --detailed also prints each flow's stage name and northd source line,
// which come from Logical_Flow external_ids rather than from what the flow
// does; compare --minimal or --summary output between two northds.
//
// ovn-trace reports an unknown datapath or a microflow it cannot parse on
// its standard output with a zero exit status: Trace returns those as
// errors.
func Trace(ctx context.Context, sbRemote, datapath, microflow string, opts ...string) (string, error) {
	return system.Trace(ctx, sbRemote, datapath, microflow, opts...)
}

// Trace is the package's Trace with the build's ovn-trace.
func (b *Build) Trace(ctx context.Context, sbRemote, datapath, microflow string, opts ...string) (string, error) {
	if err := b.Available(); err != nil {
		return "", err
	}
	args := append([]string{"--db=" + sbRemote, "-vconsole:warn"}, opts...)
	if datapath != "" {
		args = append(args, datapath)
	}
	args = append(args, microflow)
	cmd := exec.CommandContext(ctx, b.tool("ovn-trace"), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("reference: ovn-trace %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	out := stdout.String()
	for _, prefix := range []string{"unknown datapath", "error parsing flow"} {
		if strings.HasPrefix(out, prefix) {
			return "", fmt.Errorf("reference: ovn-trace %s: %s", strings.Join(args, " "), strings.TrimSpace(out))
		}
	}
	return normalizeTrace(out, stderr.String()), nil
}

var (
	// traceMicroflowKey is a tunnel key in the "# FLOW" line that opens
	// ovn-trace's output: the inport's (reg14), the outport's (reg15), the
	// datapath's (metadata).
	traceMicroflowKey = regexp.MustCompile(`\b(reg14|reg15|metadata)=0x[0-9a-f]+`)
	traceECMPKey      = regexp.MustCompile(`(ecmp_reply_port (?:==|=)) \d+`)
	traceUUID         = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	traceShortUUID    = regexp.MustCompile(`\buuid [0-9a-f]{8}\b`)
	// traceLogPrefix is what OVS's console log puts before a message:
	// "2024-05-01T10:00:00Z|00001|ovn_trace|WARN|".
	traceLogPrefix = regexp.MustCompile(`^[^|]*\|\d+\|[^|]*\|[A-Z]+\|`)
)

// normalizeTrace computes Trace's result from ovn-trace's standard output
// and error.
func normalizeTrace(stdout, stderr string) string {
	var b strings.Builder
	for line := range strings.Lines(stdout) {
		if strings.HasPrefix(line, "# ") {
			line = traceMicroflowKey.ReplaceAllString(line, "${1}=KEY")
		}
		b.WriteString(line)
	}
	if !strings.HasSuffix(b.String(), "\n") && b.Len() > 0 {
		b.WriteByte('\n')
	}
	// ovn-trace parses a flow once per datapath of its group: each
	// warning once, in order.
	var warnings []string
	for line := range strings.Lines(stderr) {
		if line = strings.TrimSpace(traceLogPrefix.ReplaceAllString(line, "")); line != "" {
			warnings = append(warnings, "warning: "+line+"\n")
		}
	}
	slices.Sort(warnings)
	for _, w := range slices.Compact(warnings) {
		b.WriteString(w)
	}
	s := traceECMPKey.ReplaceAllString(b.String(), "$1 KEY")
	s = traceUUID.ReplaceAllString(s, "UUID")
	return traceShortUUID.ReplaceAllString(s, "uuid UUID")
}
