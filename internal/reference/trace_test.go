package reference

import (
	"strings"
	"testing"
)

func TestNormalizeTrace(t *testing.T) {
	stdout := `# tcp,reg14=0x2,reg15=0x1f,metadata=0x3,vlan_tci=0x0000,dl_src=00:00:00:00:02:10,nw_src=172.16.0.10,tp_dst=80
 1. lr_in_ecmp_stateful (northd.c:10735): inport == "lrp0", priority 100, uuid 0217231e
    ct_mark.ecmp_reply_port = 12;
    output("4b6d2d8a-2ff2-4f1a-b1d0-9a7c5f3e2c11");`
	stderr := "2026-12-01T02:00:00Z|00001|ovntrace|WARN|outport == @pg1: parsing expression failed (Syntax error)\n\n"
	want := `# tcp,reg14=KEY,reg15=KEY,metadata=KEY,vlan_tci=0x0000,dl_src=00:00:00:00:02:10,nw_src=172.16.0.10,tp_dst=80
 1. lr_in_ecmp_stateful (northd.c:10735): inport == "lrp0", priority 100, uuid UUID
    ct_mark.ecmp_reply_port = KEY;
    output("UUID");
warning: outport == @pg1: parsing expression failed (Syntax error)
`
	if got := normalizeTrace(stdout, stderr); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestTrace traces packets through a scenario on each release's reference,
// with that release's ovn-trace: a verdict that needs the SB's port groups
// and address sets, and the errors ovn-trace reports on its standard
// output.
func TestTrace(t *testing.T) {
	t.Parallel()
	scenarios, err := LoadScenarios(scenarioDir)
	if err != nil {
		t.Fatal(err)
	}
	var sg Scenario
	for _, sc := range scenarios {
		if sc.Name == "lss_kubeovn_sg" {
			sg = sc
		}
	}
	if sg.Name == "" {
		t.Fatalf("no scenario lss_kubeovn_sg in %s", scenarioDir)
	}
	forEachBuild(t, func(t *testing.T, b *Build) {
		ref := b.Start(t)
		if _, err := ref.Run(t.Context(), sg.Script); err != nil {
			t.Fatal(err)
		}
		const packet = `inport == "vm-client" && eth.src == 0a:58:0a:10:00:14 && eth.dst == 0a:58:0a:10:00:0a && ` +
			`ip4.src == 10.16.0.20 && ip4.dst == 10.16.0.10 && ip.ttl == 64 && tcp && tcp.src == 40000 && tcp.dst == `
		for _, c := range []struct {
			port, verdict string
			delivered     bool
		}{{"22", "allowed by the security group", true}, {"80", "dropped by the deny-all group", false}} {
			out, err := b.Trace(t.Context(), ref.SBRemote(), "ovn-default", packet+c.port, "--minimal", "--ct=new", "--ct=new")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out, "# tcp,reg14=KEY,") || strings.Contains(out, "warning:") {
				t.Errorf("tcp %s: unexpected output:\n%s", c.port, out)
			}
			if got := strings.Contains(out, `output("vm-web");`); got != c.delivered {
				t.Errorf("tcp %s not %s:\n%s", c.port, c.verdict, out)
			}
		}
		for _, c := range []struct{ datapath, microflow, err string }{
			{"nosuch", packet + "22", `unknown datapath "nosuch"`},
			{"ovn-default", "inport == ", "error parsing flow"},
		} {
			if out, err := b.Trace(t.Context(), ref.SBRemote(), c.datapath, c.microflow); err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Trace(%q, %q) = %q, %v; want an error with %q", c.datapath, c.microflow, out, err, c.err)
			}
		}
	})
}
