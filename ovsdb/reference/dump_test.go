package reference

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A hand-written dump: a datapath group with a member lacking a name and a
// member whose Datapath_Binding is gone, and tunnel keys in flow text.
const syntheticDump = `{"caption":"Datapath_Binding table","data":[[["uuid","d1"],["map",[["logical-switch","n1"],["name","sw0"]]],["set",[]],1],[["uuid","d2"],["map",[["logical-router","n2"],["name","lr0"]]],["set",[]],2],[["uuid","d3"],["map",[]],["set",[]],3]],"headings":["_uuid","external_ids","load_balancers","tunnel_key"]}
{"caption":"Port_Binding table","data":[[["uuid","p1"],["uuid","d2"],"lrp0",1],[["uuid","p2"],["uuid","d1"],"swp",1]],"headings":["_uuid","datapath","logical_port","tunnel_key"]}

{"caption":"Logical_DP_Group table","data":[[["uuid","g1"],["set",[["uuid","d1"],["uuid","d3"],["uuid","gone"]]]]],"headings":["_uuid","datapaths"]}
{"caption":"Logical_Flow table","data":[` +
	`[["uuid","f1"],"ct_mark.ecmp_reply_port = 1; next;",["set",[]],["map",[["stage-name","lr_in_ecmp_stateful"]]],["uuid","d2"],["set",[]],"ct_mark.ecmp_reply_port == 1 && ip4.dst == $_rtr_lb_2_ip4","ingress",100,9,["map",[]]],` +
	`[["uuid","f2"],"next;",["set",[]],["map",[]],["set",[]],["uuid","g1"],"ecmp_reply_port == 1","egress",0,0,["map",[]]],` +
	`[["uuid","f3"],"drop;",["set",[]],["map",[]],["uuid","d1"],["set",[]],"ecmp_reply_port == 7 && $_rtr_lb_9_ip6 || x","ingress",5,1,["map",[]]]` +
	`],"headings":["_uuid","actions","controller_meter","external_ids","logical_datapath","logical_dp_group","match","pipeline","priority","table_id","tags"]}
`

func TestCanonicalFlows(t *testing.T) {
	got, err := canonicalFlows([]byte(syntheticDump))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"d3|egress|0|0|ecmp_reply_port == 1|next;",
		"lr0|ingress|9|100|ct_mark.ecmp_reply_port == lrp0 && ip4.dst == $_rtr_lb_lr0_ip4|ct_mark.ecmp_reply_port = lrp0; next;",
		"sw0|egress|0|0|ecmp_reply_port == swp|next;",
		"sw0|ingress|1|5|ecmp_reply_port == 7 && $_rtr_lb_9_ip6 || x|drop;",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCanonicalFlowsMalformed(t *testing.T) {
	for _, dump := range []string{
		"not json\n",
		`{"caption":"Logical_Flow table","data":[[1,2]],"headings":["_uuid"]}`,
		`{"caption":"Logical_Flow table","data":[[["uuid","f"],"next;",["set",[]],["map",[]],["uuid","d"],["set",[]],"1","ingress","high",0,["map",[]]]],"headings":["_uuid","actions","controller_meter","external_ids","logical_datapath","logical_dp_group","match","pipeline","priority","table_id","tags"]}`,
		`{"caption":"Datapath_Binding table","data":[[["uuid","d1"],["set",[]],["set",[]],1]],"headings":["_uuid","external_ids","load_balancers","tunnel_key"]}`,
	} {
		if got, err := canonicalFlows([]byte(dump)); err == nil {
			t.Errorf("no error for %s, got %q", dump, got)
		}
	}
}

// ovnRefScript is the project's shell version of this harness, when the
// shared directory beside the repository exists.
const ovnRefScript = "../../../shared/ovn-ref"

// TestDumpFlowsMatchesScript checks DumpFlows against ovn-ref flows-sb on
// the same SB.
func TestDumpFlowsMatchesScript(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(ovnRefScript); err != nil {
		t.Skipf("no %s to compare with", ovnRefScript)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("%s needs python3", ovnRefScript)
	}
	ref := Start(t)
	ctx := t.Context()
	big := TopologyOptions{Switches: 4, PortsPerSwitch: 6, Routers: 3, RouterPorts: 4}
	for _, script := range []string{
		"ovn-nbctl ls-add sw0",
		RandomTopology(1, big),
		RandomTopology(2, big),
		RandomTopology(3, big),
	} {
		got, err := ref.Run(ctx, script)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(ctx, "bash", ovnRefScript, "flows-sb", ref.SBRemote()).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if r := Compare(want, got); !r.Equal() || len(got) == 0 {
			t.Errorf("DumpFlows (+) vs ovn-ref flows-sb (-), %d lines:\n%s", len(got), r)
		}
	}
}
