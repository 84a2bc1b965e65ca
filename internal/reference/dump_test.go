package reference

import (
	"github.com/google/go-cmp/cmp"
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

// canonicalFlows is the Flows of a dump.
func canonicalFlows(dump []byte) ([]string, error) {
	d, err := ParseSBDump(dump)
	if err != nil {
		return nil, err
	}
	return d.Flows()
}

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

// TestFlowColumns: a flow's controller_meter, external_ids and tags follow
// its canonical text, source and the keys asked for left out.
func TestFlowColumns(t *testing.T) {
	dump := strings.Replace(syntheticDump,
		`[["uuid","f3"],"drop;",["set",[]],["map",[]],["uuid","d1"],["set",[]],"ecmp_reply_port == 7 && $_rtr_lb_9_ip6 || x","ingress",5,1,["map",[]]]`,
		`[["uuid","f3"],"drop;","meter0",["map",[["source","northd.c:1"],["stage-hint","0a1b2c3d"],["stage-name","ls_in_x"]]],["uuid","d1"],["set",[]],"1","ingress",5,1,["map",[["in_out_port","swp"]]]]`, 1)
	d, err := ParseSBDump([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		omit []string
		want string
	}{
		{nil, `sw0|ingress|1|5|1|drop;|controller_meter="meter0"|external_ids={"stage-hint"="0a1b2c3d" "stage-name"="ls_in_x"}|tags={"in_out_port"="swp"}`},
		{[]string{"stage-hint", "in_out_port"}, `sw0|ingress|1|5|1|drop;|controller_meter="meter0"|external_ids={"stage-name"="ls_in_x"}|tags={}`},
	} {
		got, err := d.FlowColumns(c.omit...)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(got, c.want) || len(got) != 4 {
			t.Errorf("FlowColumns(%q) =\n%s\nwant 4 lines with\n%s", c.omit, strings.Join(got, "\n"), c.want)
		}
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

// A hand-written dump of the tables Rows renders: tunnel keys in names,
// a datapath group with a dangling member, NB UUIDs in external_ids, a
// referenced row written inline, integers and one-element sets.
const syntheticRowsDump = `{"caption":"Datapath_Binding table","data":[[["uuid","d1"],["map",[["logical-switch","n1"],["name","sw0"]]],["set",[]],5],[["uuid","d2"],["map",[["logical-router","n2"],["name","lr0"]]],["set",[]],7]],"headings":["_uuid","external_ids","load_balancers","tunnel_key"]}
{"caption":"Port_Binding table","data":[[["uuid","p1"],["uuid","d1"],"swp",1]],"headings":["_uuid","datapath","logical_port","tunnel_key"]}
{"caption":"Logical_DP_Group table","data":[[["uuid","g1"],["set",[["uuid","d2"],["uuid","d1"],["uuid","gone"]]]]],"headings":["_uuid","datapaths"]}
{"caption":"Port_Group table","data":[[["uuid","pg"],"5_pg1",["set",["swp","b"]]],[["uuid","pg2"],"9_pg2","only"]],"headings":["_uuid","name","ports"]}
{"caption":"Address_Set table","data":[[["uuid","as1"],["set",[]],"_rtr_lb_7_ip4"],[["uuid","as2"],["set",["10.0.0.2","10.0.0.10"]],"pg1_ip4"]],"headings":["_uuid","addresses","name"]}
{"caption":"Load_Balancer table","data":[[["uuid","lb"],["uuid","g1"],["set",[]],["map",[["lb_id","0a2c"],["x","y"]]],"lb1",["map",[["hairpin_orig_tuple","true"]]],"tcp",["map",[["10.0.0.1:80","10.0.1.1:8080,10.0.1.2:8080"]]]]],"headings":["_uuid","datapath_group","datapaths","external_ids","name","options","protocol","vips"]}
{"caption":"Service_Monitor table","data":[[["uuid","sm"],"10.0.1.1","swp",["map",[["interval","5"]]],8080,"tcp","00:00:00:00:00:01","10.0.1.254",["set",[]]]],"headings":["_uuid","ip","logical_port","options","port","protocol","src_mac","src_ip","status"]}
`

func TestCanonicalRows(t *testing.T) {
	d, err := ParseSBDump([]byte(syntheticRowsDump))
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Rows("Address_Set", "Port_Group", "Load_Balancer", "Service_Monitor", "Datapath_Binding", "Port_Binding", "Meter")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`Address_Set|addresses=["10.0.0.10" "10.0.0.2"]|name="pg1_ip4"`,
		`Address_Set|addresses=[]|name="_rtr_lb_lr0_ip4"`,
		`Datapath_Binding|external_ids={"logical-router"=* "name"="lr0"}|load_balancers=[]`,
		`Datapath_Binding|external_ids={"logical-switch"=* "name"="sw0"}|load_balancers=[]`,
		`Load_Balancer|datapath_group=Logical_DP_Group{datapaths=[dp(lr0) dp(sw0)]}|datapaths=[]|external_ids={"lb_id"=* "x"="y"}|name="lb1"|options={"hairpin_orig_tuple"="true"}|protocol="tcp"|vips={"10.0.0.1:80"="10.0.1.1:8080,10.0.1.2:8080"}`,
		`Port_Binding|datapath=dp(sw0)|logical_port="swp"`,
		`Port_Group|name="9_pg2"|ports="only"`,
		`Port_Group|name="sw0_pg1"|ports=["b" "swp"]`,
		`Service_Monitor|ip="10.0.1.1"|logical_port="swp"|options={"interval"="5"}|port=8080|protocol="tcp"|src_ip="10.0.1.254"|src_mac="00:00:00:00:00:01"|status=[]`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Rows (-want +got):\n%s", d)
	}
}

func TestCanonicalRowsMalformed(t *testing.T) {
	for _, dump := range []string{
		`{"caption":"Port_Group table","data":[[["uuid","pg"],7,["set",[]]]],"headings":["_uuid","name","ports"]}`,
		`{"caption":"Address_Set table","data":[[["uuid","as"],["map",[["k"]]],"x"]],"headings":["_uuid","addresses","name"]}`,
		`{"caption":"Address_Set table","data":[[["uuid","as"],null,"x"]],"headings":["_uuid","addresses","name"]}`,
	} {
		d, err := ParseSBDump([]byte(dump))
		if err != nil {
			t.Errorf("ParseSBDump(%s): %v", dump, err)
			continue
		}
		if got, err := d.Rows("Port_Group", "Address_Set"); err == nil {
			t.Errorf("no error for %s, got %q", dump, got)
		}
	}
}

// TestDumpRowsReference reads the rows the real ovn-northd writes for a
// port group on two switches, an address set and a health-checked load
// balancer on a switch and a router, and checks that they come out
// named, without tunnel keys.
func TestDumpRowsReference(t *testing.T) {
	t.Parallel()
	ref := Start(t)
	ctx := t.Context()
	err := ref.Apply(ctx, `ovn-nbctl ls-add sw0 -- ls-add sw1 -- lr-add lr0
ovn-nbctl lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.11"
ovn-nbctl lsp-add sw1 vm2 -- lsp-set-addresses vm2 "00:00:00:00:00:02 10.0.0.12 fd00::12"
ovn-nbctl pg-add pg0 vm1 vm2
ovn-nbctl create Address_Set name=as1 addresses='"1.1.1.1", "2.2.2.0/24"'
ovn-nbctl lb-add lb0 10.0.0.100:80 10.0.0.11:8080 tcp -- ls-lb-add sw0 lb0 -- lr-lb-add lr0 lb0
ovn-nbctl lrp-add lr0 lrp0 00:00:00:00:ff:01 10.0.0.254/24
ovn-nbctl set Load_Balancer lb0 ip_port_mappings:10.0.0.11=vm1:10.0.0.254
ovn-nbctl --id=@hc create Load_Balancer_Health_Check vip="10.0.0.100\:80" -- add Load_Balancer lb0 health_check @hc`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DumpRows(ctx, ref.SBRemote(), "Port_Group", "Address_Set", "Load_Balancer", "Service_Monitor")
	if err != nil {
		t.Fatal(err)
	}
	var mac string
	for _, l := range got {
		if m, ok := strings.CutPrefix(l, `Address_Set|addresses="`); ok {
			if m, ok = strings.CutSuffix(m, `"|name="svc_monitor_mac"`); ok {
				mac = m
			}
		}
	}
	want := []string{
		`Address_Set|addresses="` + mac + `"|name="svc_monitor_mac"`,
		`Address_Set|addresses="fd00::12"|name="pg0_ip6"`,
		`Address_Set|addresses="10.0.0.100"|name="_rtr_lb_lr0_ip4"`,
		`Address_Set|addresses=["1.1.1.1" "2.2.2.0/24"]|name="as1"`,
		`Address_Set|addresses=["10.0.0.11" "10.0.0.12"]|name="pg0_ip4"`,
		`Load_Balancer|datapath_group=Logical_DP_Group{datapaths=dp(sw0)}|datapaths=[]|external_ids={"lb_id"=*}|name="lb0"|options={"hairpin_orig_tuple"="true"}|protocol="tcp"|vips={"10.0.0.100:80"="10.0.0.11:8080"}`,
		`Port_Group|name="sw0_pg0"|ports="vm1"`,
		`Port_Group|name="sw1_pg0"|ports="vm2"`,
		`Service_Monitor|external_ids={}|ip="10.0.0.11"|logical_port="vm1"|options={}|port=8080|protocol="tcp"|src_ip="10.0.0.254"|src_mac="` + mac + `"|status=[]`,
	}
	slices.Sort(want)
	if d := cmp.Diff(want, got); d != "" || mac == "" {
		t.Errorf("DumpRows of the reference (-want +got):\n%s", d)
	}
}
