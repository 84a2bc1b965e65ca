package rules_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// TestSBLoadBalancerRows compares, for every scenario, the SB
// Load_Balancer, Address_Set, Port_Group and Service_Monitor rows that the
// real ovn-northd writes with those northlog computes from the same NB.
func TestSBLoadBalancerRows(t *testing.T) {
	ref := reference.Start(t)
	scenarios, err := reference.LoadScenariosFor("testdata/scenarios", schema.OVN2303)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			if _, err := ref.Run(t.Context(), sc.Script); err != nil {
				t.Fatal(err)
			}
			want := referenceLBRows(t, ref.SBRemote())
			got := northlogLBRows(t, ref.NBFile())
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s\nSB load balancer rows differ (-ovn-northd +northlog):\n%s", sc.Description, d)
			}
		})
	}
}

// TestSBLoadBalancerRowsRandom compares the same rows for the random
// security topologies of TestDifferentialRandomSecurity (-security-seeds
// sets how many): load balancers on switches, routers and groups, with
// health checks and port mappings.
func TestSBLoadBalancerRowsRandom(t *testing.T) {
	ref := reference.Start(t)
	for seed := range *securitySeeds {
		t.Run(fmt.Sprint("seed", seed+1), func(t *testing.T) {
			script := reference.RandomTopology(int64(seed+1), securityTopology())
			if _, err := ref.Run(t.Context(), script); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(referenceLBRows(t, ref.SBRemote()), northlogLBRows(t, ref.NBFile())); d != "" {
				t.Errorf("topology:\n%s\nSB load balancer rows differ (-ovn-northd +northlog):\n%s", script, d)
			}
		})
	}
}

// northlogLBRows computes the rows offline from an NB file, in the form of
// referenceLBRows.
func northlogLBRows(t *testing.T, nbFile string) []string {
	contents, err := ovsdb.LoadNB(nbFile)
	if err != nil {
		t.Fatal(err)
	}
	p := rules.New()
	names := map[string]string{}
	for table, row := range contents.All() {
		if err := p.NB.Apply(table, nil, row); err != nil {
			t.Fatal(err)
		}
		switch dp := row.(type) {
		case *nb.LogicalSwitch:
			names[dp.UUID] = dp.Name
		case *nb.LogicalRouter:
			names[dp.UUID] = dp.Name
		}
	}
	p.Step()
	var out []string
	for _, lb := range p.LoadBalancers.Contents() {
		var dps []string
		for _, id := range lb.Switches.Slice() {
			dps = append(dps, names[id])
		}
		out = append(out, lbLine(lb.LB, lb.Name, lb.Protocol, lb.VIPs.Map(), lb.Options.Map(), dps))
	}
	resolve := func(name string) string { return rules.ResolveKeys(name, func(id string) string { return names[id] }) }
	out = append(out, setLines("Address_Set", p.AddressSets.Contents(), p.AddressSetMembers.Contents(), resolve)...)
	out = append(out, setLines("Port_Group", p.PortGroups.Contents(), p.PortGroupMembers.Contents(), resolve)...)
	for _, m := range p.ServiceMonitors.Contents() {
		out = append(out, monitorLine(m.IP, m.Port, m.LogicalPort, m.Protocol, m.Options.Map(), m.SrcMAC, m.SrcIP))
	}
	slices.Sort(out)
	return out
}

func monitorLine(ip string, port int, lport, proto string, options map[string]string, mac, src string) string {
	return fmt.Sprintf("Service_Monitor %s:%d %s %s options=%v src=%s %s", ip, port, lport, proto, options, mac, src)
}

func lbLine(id, name, proto string, vips, options map[string]string, dps []string) string {
	slices.Sort(dps)
	return fmt.Sprintf("Load_Balancer %s name=%q protocol=%q vips=%v options=%v datapaths=%v", id, name, proto, vips, options, dps)
}

func setLine(table, name string, members []string) string {
	slices.Sort(members)
	return fmt.Sprintf("%s %s %q", table, name, members)
}

// setLines are the lines of the sets of a table, their names resolved.
func setLines(table string, sets []rules.SBNamedSet, members []rules.SBSetMember, resolve func(string) string) []string {
	bySet := map[string][]string{}
	for _, m := range members {
		bySet[m.Set] = append(bySet[m.Set], m.Member)
	}
	var out []string
	for _, s := range sets {
		out = append(out, setLine(table, resolve(s.Name), bySet[s.Name]))
	}
	return out
}

// referenceLBRows reads the SB Load_Balancer rows (with their datapath
// group's datapaths by name), the Address_Set and Port_Group rows (with the
// tunnel keys in _rtr_lb_KEY_ip4 and KEY_pg names replaced by the
// datapath's name) and the Service_Monitor rows of the SB at remote.
func referenceLBRows(t *testing.T, remote string) []string {
	cmd := exec.CommandContext(t.Context(), "ovsdb-client", "-f", "json", "dump", remote, "OVN_Southbound")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dump %s: %v: %s", remote, err, stderr.String())
	}
	tables := map[string][]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var tbl struct {
			Caption  string   `json:"caption"`
			Headings []string `json:"headings"`
			Data     [][]any  `json:"data"`
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &tbl); err != nil {
			t.Fatal(err)
		}
		name, _, _ := strings.Cut(tbl.Caption, " ")
		for _, d := range tbl.Data {
			r := map[string]any{}
			for i, h := range tbl.Headings {
				r[h] = d[i]
			}
			tables[name] = append(tables[name], r)
		}
	}
	dpName, dpByKey := map[string]string{}, map[string]string{}
	for _, r := range tables["Datapath_Binding"] {
		name := ovsMap(r["external_ids"])["name"]
		dpName[ovsUUID(r["_uuid"])] = name
		dpByKey[fmt.Sprint(r["tunnel_key"])] = name
	}
	groups := map[string][]string{}
	for _, r := range tables["Logical_DP_Group"] {
		for _, id := range ovsSet(r["datapaths"]) {
			groups[ovsUUID(r["_uuid"])] = append(groups[ovsUUID(r["_uuid"])], dpName[ovsUUID(id)])
		}
	}
	var rows []string
	for _, r := range tables["Load_Balancer"] {
		var dps []string
		for _, g := range ovsSet(r["datapath_group"]) {
			dps = append(dps, groups[ovsUUID(g)]...)
		}
		proto := ""
		if p := ovsSet(r["protocol"]); len(p) == 1 {
			proto = p[0].(string)
		}
		rows = append(rows, lbLine(ovsMap(r["external_ids"])["lb_id"], r["name"].(string), proto,
			ovsMap(r["vips"]), ovsMap(r["options"]), dps))
	}
	for _, table := range []string{"Address_Set", "Port_Group"} {
		column := map[string]string{"Address_Set": "addresses", "Port_Group": "ports"}[table]
		for _, r := range tables[table] {
			name := r["name"].(string)
			if key, ok := strings.CutPrefix(name, "_rtr_lb_"); ok {
				key, family, _ := strings.Cut(key, "_")
				name = "_rtr_lb_" + dpByKey[key] + "_" + family
			} else if key, pg, ok := strings.Cut(name, "_"); ok && table == "Port_Group" {
				name = dpByKey[key] + "_" + pg
			}
			var members []string
			for _, a := range ovsSet(r[column]) {
				members = append(members, a.(string))
			}
			rows = append(rows, setLine(table, name, members))
		}
	}
	for _, r := range tables["Service_Monitor"] {
		port, _ := r["port"].(float64)
		rows = append(rows, monitorLine(r["ip"].(string), int(port), r["logical_port"].(string), ovsString(r["protocol"]),
			ovsMap(r["options"]), ovsString(r["src_mac"]), ovsString(r["src_ip"])))
	}
	slices.Sort(rows)
	return rows
}

// ovsString reads an optional OVSDB JSON string: the string, or "" for an
// empty set.
func ovsString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// ovsSet reads an OVSDB JSON set: ["set", [...]] or a single atom.
func ovsSet(v any) []any {
	if a, ok := v.([]any); ok && len(a) == 2 && a[0] == "set" {
		return a[1].([]any)
	}
	return []any{v}
}

// ovsMap reads an OVSDB JSON string map: ["map", [[k, v], ...]].
func ovsMap(v any) map[string]string {
	m := map[string]string{}
	for _, kv := range v.([]any)[1].([]any) {
		p := kv.([]any)
		m[p[0].(string)] = p[1].(string)
	}
	return m
}

// ovsUUID reads an OVSDB JSON uuid: ["uuid", "..."].
func ovsUUID(v any) string { return v.([]any)[1].(string) }
