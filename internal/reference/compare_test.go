package reference

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/northlog/northlog/rules"
)

func TestCompare(t *testing.T) {
	expected := []string{
		"sw0|ingress|25|50|eth.dst == 0a:00:00:00:00:01|outport = \"p1\"; output;",
		"sw0|ingress|0|100|vlan.present|drop;",
		"sw0|ingress|0|100|vlan.present|drop;", // a duplicate, matched once
		"sw0|egress|9|0|1|output;",
		"lr0|ingress|0|50|eth.mcast && inport == \"lrp0\"|next;",
		"lr0|egress|6|0|1|output;",
	}
	actual := []string{
		"sw0|ingress|0|100|vlan.present|drop;",
		"sw0|egress|9|0|1|output;",
		"sw0|egress|9|0|1|next;", // extra
		"lr0|ingress|0|50|eth.mcast && inport == \"lrp0\"|next;",
		"lr0|egress|6|0|1|output;",
		"lr1|ingress|3|0|1|next;", // extra, on a datapath expected lacks
		"garbage",                 // malformed
	}
	r := Compare(expected, actual)
	if r.Expected != 6 || r.Matched != 4 || r.Missing != 2 || r.Extra != 3 || r.Equal() {
		t.Errorf("totals %d/%d/%d/%d, equal %v; want 6/4/2/3, false", r.Expected, r.Matched, r.Missing, r.Extra, r.Equal())
	}
	wantMissing := []string{expected[2], expected[0]}
	if !slices.Equal(r.MissingLines, wantMissing) {
		t.Errorf("missing %q, want %q", r.MissingLines, wantMissing)
	}
	wantExtra := []string{"garbage", "lr1|ingress|3|0|1|next;", "sw0|egress|9|0|1|next;"}
	if !slices.Equal(r.ExtraLines, wantExtra) {
		t.Errorf("extra %q, want %q", r.ExtraLines, wantExtra)
	}
	var stages []string
	for _, s := range r.Stages {
		stages = append(stages, fmt.Sprintf("%s %s %d %s %d/%d/%d/%d", kindName(s.Kind), s.Pipeline, s.Table, s.Name, s.Expected, s.Matched, s.Missing, s.Extra))
	}
	wantStages := []string{
		"switch ingress -1 malformed 0/0/0/1",
		"switch ingress 0 ls_in_check_port_sec 2/1/1/0",
		"switch ingress 25 ls_in_l2_lkup 1/0/1/0",
		"switch egress 9 ls_out_apply_port_sec 1/1/0/1",
		"router ingress 0 lr_in_admission 1/1/0/0",
		"router ingress 3 lr_in_ip_input 0/0/0/1",
		"router egress 6 lr_out_delivery 1/1/0/0",
	}
	if !slices.Equal(stages, wantStages) {
		t.Errorf("stages\n%s\nwant\n%s", strings.Join(stages, "\n"), strings.Join(wantStages, "\n"))
	}
	s := r.String()
	for _, want := range []string{
		"* switch ingress 25 ls_in_l2_lkup",
		"  router egress  6 lr_out_delivery",
		"-" + expected[0] + "\n",
		"+sw0|egress|9|0|1|next;\n",
		"+garbage\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	reversed := slices.Clone(expected)
	slices.Reverse(reversed)
	if r := Compare(expected, reversed); !r.Equal() || r.Matched != len(expected) || strings.Contains(r.String(), "differing") {
		t.Errorf("a dump in another order differs from itself:\n%s", r)
	}
}

func TestCompareStringTruncates(t *testing.T) {
	var expected []string
	for i := range 100 {
		expected = append(expected, fmt.Sprintf("sw0|ingress|25|50|eth.dst == %d|drop;", i))
	}
	r := Compare(expected, nil)
	s := r.String()
	if n := strings.Count(s, "\n-sw0"); n != maxDiffLines {
		t.Errorf("%d lines printed, want %d", n, maxDiffLines)
	}
	if !strings.Contains(s, "... and 60 more") {
		t.Errorf("no count of the lines left out:\n%s", s)
	}
	if r.Stages[0].Kind != rules.Switch || r.Stages[0].Missing != 100 {
		t.Errorf("stage %+v", r.Stages[0])
	}
}
