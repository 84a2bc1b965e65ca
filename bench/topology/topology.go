// Package topology generates an ovn-kubernetes-like Northbound database for
// benchmarks: node switches full of pods, a join switch, a cluster router, a
// gateway router and external switch per node, load balancers in one group,
// and network policies as port groups with ACLs over namespace address sets.
//
// The database is emitted as OVSDB transactions (RFC 7047 "transact" params,
// ["OVN_Northbound", op...]) small enough to pass to `ovsdb-client transact`
// as one command-line argument each. Every row carries an explicit "uuid"
// derived from the seed and the row's name, so the same options load the
// same rows, UUIDs included, into any number of NB databases: ovn-northd's
// output depends on row UUIDs in places (ECMP member order), and two
// databases compare only when their rows are identical.
package topology

import (
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"slices"
)

// Options sizes the topology.
type Options struct {
	Nodes         int // nodes, each with a node switch, gateway router and external switch (1..1024)
	PodsPerNode   int // pod ports on each node switch (0..250)
	Namespaces    int // namespaces the pods are spread over, one address set each (≥ 1)
	LoadBalancers int // cluster-IP load balancers in the cluster load balancer group
	Backends      int // backends (pods) per load balancer (≥ 1 when there are pods)
	Policies      int // network policies, each a port group with its ACLs
	PolicyPods    int // pods selected by each network policy
	Seed          uint64
}

// Large is the default size: 100 nodes × 50 pods (5,000 ports), 500 load
// balancers, 200 network policies.
func Large() Options {
	return Options{Nodes: 100, PodsPerNode: 50, Namespaces: 20, LoadBalancers: 500, Backends: 3, Policies: 200, PolicyPods: 3, Seed: 1}
}

// XLarge is 250 nodes × 100 pods (25,000 ports), 5,000 load balancers in
// the one group on every node switch and gateway router, 1,000 network
// policies: the size of a large ovn-kubernetes cluster.
func XLarge() Options {
	return Options{Nodes: 250, PodsPerNode: 100, Namespaces: 20, LoadBalancers: 5000, Backends: 3, Policies: 1000, PolicyPods: 3, Seed: 1}
}

// Huge is 1,000 nodes × 100 pods (100,000 ports), with XLarge's load
// balancers and policies: to show how northlog's cost grows.
func Huge() Options {
	o := XLarge()
	o.Nodes = 1000
	return o
}

// Small is a quick topology: 10 nodes × 10 pods, 50 load balancers, 20
// network policies.
func Small() Options {
	return Options{Nodes: 10, PodsPerNode: 10, Namespaces: 5, LoadBalancers: 50, Backends: 3, Policies: 20, PolicyPods: 3, Seed: 1}
}

// MaxTransactionBytes bounds the JSON text of one transaction. Linux limits a
// single command-line argument to 128 KiB (MAX_ARG_STRLEN), and
// `ovsdb-client transact` takes the transaction as one argument.
const MaxTransactionBytes = 120_000

// Topology is a generated NB database.
type Topology struct {
	Options Options
	// Transactions are the "transact" params to apply in order, each at
	// most MaxTransactionBytes of JSON.
	Transactions []json.RawMessage
	// Rows counts the inserted rows per NB table.
	Rows map[string]int
	// NodeSwitches are the node switches' names, node 0 first.
	NodeSwitches []string
}

// Port is a logical switch port that the topology leaves free, for
// benchmarks that add and delete ports.
type Port struct {
	Switch string
	Name   string
	// Addresses is both the "addresses" and the "port_security" entry,
	// "MAC IP" as ovn-kubernetes writes them for a pod.
	Addresses string
}

// SparePort returns a pod port not in the topology on node i mod Nodes, at
// the node subnet's address .253, which no generated pod uses.
func (t *Topology) SparePort(i int) Port {
	n := i % t.Options.Nodes
	ip := nodeSubnet(n).Addr().As4()
	ip[3] = 253
	a := netip.AddrFrom4(ip)
	return Port{Switch: nodeName(n), Name: "bench_spare-" + nodeName(n), Addresses: macOf(a) + " " + a.String()}
}

// WriteJSONLines writes one transaction per line, for
//
//	while read -r t; do ovsdb-client transact "$OVN_NB_DB" "$t"; done
func (t *Topology) WriteJSONLines(w io.Writer) error {
	for _, tx := range t.Transactions {
		if _, err := fmt.Fprintf(w, "%s\n", tx); err != nil {
			return err
		}
	}
	return nil
}

// Addressing, as ovn-kubernetes lays it out by default.
var (
	clusterCIDR = netip.MustParsePrefix("10.128.0.0/14") // node i: 10.(128+i/256).(i%256).0/24
	joinCIDR    = netip.MustParsePrefix("100.64.0.0/16") // cluster router .1, gateway router of node i: base+i+2
	extCIDR     = netip.MustParsePrefix("172.18.0.0/16") // upstream gateway .1, node i: base+i+2
	serviceCIDR = netip.MustParsePrefix("10.96.0.0/16")  // load balancer k: base+k+1
)

const (
	clusterRouter = "ovn_cluster_router"
	joinSwitch    = "join"
	lbGroup       = "clusterLBGroup"
	hairpinSNATIP = "169.254.169.5 fd69::5"
	backendPort   = 8080
)

// Generate builds the topology for o.
func Generate(o Options) (*Topology, error) {
	switch {
	case o.Nodes < 1 || o.Nodes > 1024:
		return nil, fmt.Errorf("topology: %d nodes, want 1..1024", o.Nodes)
	case o.PodsPerNode < 0 || o.PodsPerNode > 250:
		return nil, fmt.Errorf("topology: %d pods per node, want 0..250", o.PodsPerNode)
	case o.Namespaces < 1:
		return nil, fmt.Errorf("topology: %d namespaces, want at least 1", o.Namespaces)
	case o.LoadBalancers < 0 || o.LoadBalancers > 65000:
		return nil, fmt.Errorf("topology: %d load balancers, want 0..65000", o.LoadBalancers)
	case o.LoadBalancers > 0 && o.PodsPerNode > 0 && o.Backends < 1:
		return nil, fmt.Errorf("topology: %d backends per load balancer, want at least 1", o.Backends)
	case o.Policies < 0 || o.PolicyPods < 0:
		return nil, fmt.Errorf("topology: negative policy counts (%d policies of %d pods)", o.Policies, o.PolicyPods)
	}
	g := &gen{
		o:    o,
		rng:  rand.New(rand.NewPCG(o.Seed, 0x62656e6368)),
		topo: &Topology{Options: o, Rows: map[string]int{}},
	}
	g.layoutPods()
	g.addressSets()
	g.loadBalancers()
	g.clusterRouterAndJoin()
	for n := range o.Nodes {
		g.nodeSwitch(n)
		g.gateway(n)
	}
	g.defaultPortGroups()
	g.networkPolicies()
	if err := g.pack(); err != nil {
		return nil, err
	}
	return g.topo, nil
}

// pod is one generated pod.
type pod struct {
	name, ns string
	node     int
	ip       netip.Addr
}

// gen accumulates units: lists of operations that must share a transaction
// (a root row and the non-root rows it alone references).
type gen struct {
	o     Options
	rng   *rand.Rand
	topo  *Topology
	units [][]op
	pods  []pod
	byNS  [][]int // pod indexes per namespace
}

type op map[string]any

func (g *gen) unit(ops ...op) { g.units = append(g.units, ops) }

// insert returns an insert of row into table with the UUID of table/key.
func (g *gen) insert(table, key string, row map[string]any) op {
	g.topo.Rows[table]++
	return op{"op": "insert", "table": table, "uuid": g.uuid(table, key), "row": row}
}

// mutateInsert adds the rows of refTable named refKeys to the set column col
// of the row of table/key.
func (g *gen) mutateInsert(table, key, col, refTable string, refKeys ...string) op {
	return op{"op": "mutate", "table": table, "where": []any{[]any{"_uuid", "==", uuidAtom(g.uuid(table, key))}},
		"mutations": []any{[]any{col, "insert", g.refs(refTable, refKeys)}}}
}

// refsPerMutation bounds the references one mutation adds, so that a row
// referring to thousands of rows (a load balancer group of every service)
// is filled over several transactions of at most MaxTransactionBytes.
const refsPerMutation = 1000

// addRefs adds the rows of refTable named keys to the set column col of the
// row of table/key, refsPerMutation at a time, one unit each.
func (g *gen) addRefs(table, key, col, refTable string, keys []string) {
	for chunk := range slices.Chunk(keys, refsPerMutation) {
		g.unit(g.mutateInsert(table, key, col, refTable, chunk...))
	}
}

// uuid is the UUID of the row of table named key: the first 16 bytes of a
// SHA-1 over the seed and names, shaped as a version 5 UUID.
func (g *gen) uuid(table, key string) string {
	h := sha1.Sum(fmt.Appendf(nil, "northlog-bench/%d/%s/%s", g.o.Seed, table, key))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// OVSDB JSON values.
func uuidAtom(u string) []any { return []any{"uuid", u} }
func set(atoms ...any) []any {
	if atoms == nil {
		atoms = []any{}
	}
	return []any{"set", atoms}
}

// smap is an OVSDB map of strings from alternating keys and values.
func smap(kv ...string) []any {
	pairs := []any{}
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, []any{kv[i], kv[i+1]})
	}
	return []any{"map", pairs}
}

func (g *gen) refs(table string, keys []string) []any {
	atoms := make([]any, len(keys))
	for i, k := range keys {
		atoms[i] = uuidAtom(g.uuid(table, k))
	}
	return set(atoms...)
}

func nodeName(n int) string           { return fmt.Sprintf("node%d", n) }
func gwRouter(n int) string           { return "GR_" + nodeName(n) }
func nsName(k int) string             { return fmt.Sprintf("ns%d", k) }
func addressSetName(ns string) string { return "as_" + ns + "_v4" }

// offset returns the address i after p's base address (IPv4).
func offset(p netip.Prefix, i int) netip.Addr {
	b := p.Addr().As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += uint32(i)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func nodeSubnet(n int) netip.Prefix { return netip.PrefixFrom(offset(clusterCIDR, n<<8), 24) }

// macOf is ovn-kubernetes' MAC for an IPv4 address: 0a:58 and the address.
func macOf(a netip.Addr) string {
	b := a.As4()
	return fmt.Sprintf("0a:58:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3])
}

// layoutPods lays out the pods: pod j of node n at .j+3 of the node subnet (.1 is
// the router, .2 the management port), namespaces round robin.
func (g *gen) layoutPods() {
	g.byNS = make([][]int, g.o.Namespaces)
	for n := range g.o.Nodes {
		for j := range g.o.PodsPerNode {
			k := len(g.pods) % g.o.Namespaces
			g.byNS[k] = append(g.byNS[k], len(g.pods))
			g.pods = append(g.pods, pod{
				name: fmt.Sprintf("%s_pod-%d-%d", nsName(k), n, j),
				ns:   nsName(k), node: n, ip: offset(nodeSubnet(n), j+3),
			})
		}
	}
}

// addressSets writes one address set per namespace holding its pods' IPs.
func (g *gen) addressSets() {
	for k, members := range g.byNS {
		ips := make([]any, len(members))
		for i, p := range members {
			ips[i] = g.pods[p].ip.String()
		}
		name := addressSetName(nsName(k))
		g.unit(g.insert("Address_Set", name, map[string]any{
			"name": name, "addresses": set(ips...),
			"external_ids": smap("k8s.ovn.org/kind", "Namespace", "k8s.ovn.org/name", nsName(k)),
		}))
	}
}

// loadBalancers writes the cluster-IP services: VIP port 80 (and 443 for
// every fifth) to Backends random pods on port 8080, and the group holding
// them all.
func (g *gen) loadBalancers() {
	names := make([]string, g.o.LoadBalancers)
	for k := range g.o.LoadBalancers {
		ns := nsName(k % g.o.Namespaces)
		svc := fmt.Sprintf("svc%d", k)
		names[k] = fmt.Sprintf("Service_%s/%s_TCP_cluster", ns, svc)
		var backends string
		if len(g.pods) > 0 {
			for b := range g.o.Backends {
				if b > 0 {
					backends += ","
				}
				backends += fmt.Sprintf("%s:%d", g.pods[g.rng.IntN(len(g.pods))].ip, backendPort)
			}
		}
		vip := offset(serviceCIDR, k+1).String()
		vips := []string{vip + ":80", backends}
		if k%5 == 0 {
			vips = append(vips, vip+":443", backends)
		}
		g.unit(g.insert("Load_Balancer", names[k], map[string]any{
			"name": names[k], "protocol": "tcp", "vips": smap(vips...),
			"options":      smap("event", "false", "hairpin_snat_ip", hairpinSNATIP, "reject", "true", "skip_snat", "false"),
			"external_ids": smap("k8s.ovn.org/kind", "Service", "k8s.ovn.org/owner", ns+"/"+svc),
		}))
	}
	g.unit(g.insert("Load_Balancer_Group", lbGroup, map[string]any{"name": lbGroup, "load_balancer": set()}))
	g.addRefs("Load_Balancer_Group", lbGroup, "load_balancer", "Load_Balancer", names)
}

// clusterRouterAndJoin writes the cluster router with its join port and
// cluster-wide policies, and the join switch with the router's peer port.
// Nodes add their ports, routes and policies by mutation.
func (g *gen) clusterRouterAndJoin() {
	rtoj, jtor := "rtoj-"+clusterRouter, "jtor-"+clusterRouter
	cluster, join := clusterCIDR.String(), joinCIDR.String()
	policies := []string{
		"ip4.src == " + cluster + " && ip4.dst == " + cluster,
		"ip4.src == " + cluster + " && ip4.dst == " + join,
	}
	var ops []op
	for i, m := range policies {
		ops = append(ops, g.insert("Logical_Router_Policy", fmt.Sprintf("allow%d", i), map[string]any{
			"priority": 102, "match": m, "action": "allow",
		}))
	}
	routerIP := offset(joinCIDR, 1)
	ops = append(ops,
		g.insert("Logical_Router_Port", rtoj, map[string]any{
			"name": rtoj, "mac": macOf(routerIP), "networks": set(netip.PrefixFrom(routerIP, 16).String()),
		}),
		g.insert("Logical_Router", clusterRouter, map[string]any{
			"name": clusterRouter, "ports": g.refs("Logical_Router_Port", []string{rtoj}),
			"policies":     g.refs("Logical_Router_Policy", []string{"allow0", "allow1"}),
			"external_ids": smap("k8s-cluster-router", "yes", "k8s-ovn-topo-version", "11"),
		}),
		g.insert("Logical_Switch_Port", jtor, routerLSP(jtor, rtoj)),
		g.insert("Logical_Switch", joinSwitch, map[string]any{
			"name": joinSwitch, "ports": g.refs("Logical_Switch_Port", []string{jtor}),
		}),
	)
	g.unit(ops...)
}

// routerLSP is the row of a switch port peering with router port lrp.
func routerLSP(name, lrp string) map[string]any {
	return map[string]any{"name": name, "type": "router", "addresses": "router", "options": smap("router-port", lrp)}
}

// nodeSwitch writes node n's switch: the router port, the management port
// (.2), the pods, the management-port ACL and the load balancer group.
func (g *gen) nodeSwitch(n int) {
	sw, subnet := nodeName(n), nodeSubnet(n)
	mgmtIP := offset(subnet, 2)
	stor, mgmt := "stor-"+sw, "k8s-"+sw
	ports := []string{stor, mgmt}
	ops := []op{
		g.insert("Logical_Switch_Port", stor, routerLSP(stor, "rtos-"+sw)),
		g.insert("Logical_Switch_Port", mgmt, map[string]any{"name": mgmt, "addresses": macOf(mgmtIP) + " " + mgmtIP.String()}),
	}
	for j := range g.o.PodsPerNode {
		p := g.pods[n*g.o.PodsPerNode+j]
		addr := macOf(p.ip) + " " + p.ip.String()
		ports = append(ports, p.name)
		ops = append(ops, g.insert("Logical_Switch_Port", p.name, map[string]any{
			"name": p.name, "addresses": addr, "port_security": addr,
			"external_ids": smap("namespace", p.ns, "pod", "true"),
		}))
	}
	acl := "mgmt-" + sw
	ops = append(ops,
		g.insert("ACL", acl, map[string]any{
			"direction": "to-lport", "priority": 1001, "match": "ip4.src==" + mgmtIP.String(), "action": "allow-related",
		}),
		g.insert("Logical_Switch", sw, map[string]any{
			"name": sw, "ports": g.refs("Logical_Switch_Port", ports),
			"acls":                g.refs("ACL", []string{acl}),
			"load_balancer_group": g.refs("Load_Balancer_Group", []string{lbGroup}),
			"other_config":        smap("subnet", subnet.String()),
		}))
	g.unit(ops...)
}

// gateway writes node n's share of the cluster router (router port to the
// node switch, source route to the gateway router, reroute policy of the
// node IP to the management port), its gateway router with SNAT, routes
// and the load balancer group, its external switch with the localnet port,
// and the gateway router's port on the join switch.
func (g *gen) gateway(n int) {
	sw, gr := nodeName(n), gwRouter(n)
	subnet := nodeSubnet(n)
	rtos, rtoj, rtoe := "rtos-"+sw, "rtoj-"+gr, "rtoe-"+gr
	jtor, etor, ext, localnet := "jtor-"+gr, "etor-"+gr, "ext_"+sw, "breth0_"+sw
	joinIP, nodeIP := offset(joinCIDR, n+2), offset(extCIDR, n+2)
	routerIP := offset(subnet, 1)
	srcRoute, reroute := "src-"+sw, "reroute-"+sw
	toCluster, dflt, snat := "cluster-"+gr, "default-"+gr, "snat-"+gr
	ops := []op{
		g.insert("Logical_Router_Port", rtos, map[string]any{
			"name": rtos, "mac": macOf(routerIP), "networks": set(netip.PrefixFrom(routerIP, 24).String()),
		}),
		g.mutateInsert("Logical_Router", clusterRouter, "ports", "Logical_Router_Port", rtos),
		g.insert("Logical_Router_Static_Route", srcRoute, map[string]any{
			"ip_prefix": subnet.String(), "nexthop": joinIP.String(), "policy": "src-ip",
		}),
		g.mutateInsert("Logical_Router", clusterRouter, "static_routes", "Logical_Router_Static_Route", srcRoute),
		g.insert("Logical_Router_Policy", reroute, map[string]any{
			"priority": 1004, "action": "reroute", "nexthops": set(offset(subnet, 2).String()),
			"match": fmt.Sprintf("inport == %q && ip4.dst == %s", rtos, nodeIP),
		}),
		g.mutateInsert("Logical_Router", clusterRouter, "policies", "Logical_Router_Policy", reroute),
		g.insert("Logical_Router_Port", rtoj, map[string]any{
			"name": rtoj, "mac": macOf(joinIP), "networks": set(netip.PrefixFrom(joinIP, 16).String()),
		}),
		g.insert("Logical_Router_Port", rtoe, map[string]any{
			"name": rtoe, "mac": macOf(nodeIP), "networks": set(netip.PrefixFrom(nodeIP, 16).String()),
		}),
		g.insert("Logical_Router_Static_Route", toCluster, map[string]any{
			"ip_prefix": clusterCIDR.String(), "nexthop": offset(joinCIDR, 1).String(),
		}),
		g.insert("Logical_Router_Static_Route", dflt, map[string]any{
			"ip_prefix": "0.0.0.0/0", "nexthop": offset(extCIDR, 1).String(), "output_port": rtoe,
		}),
		g.insert("NAT", snat, map[string]any{
			"type": "snat", "external_ip": nodeIP.String(), "logical_ip": clusterCIDR.String(),
		}),
		g.insert("Logical_Router", gr, map[string]any{
			"name": gr, "ports": g.refs("Logical_Router_Port", []string{rtoj, rtoe}),
			"static_routes":       g.refs("Logical_Router_Static_Route", []string{toCluster, dflt}),
			"nat":                 g.refs("NAT", []string{snat}),
			"load_balancer_group": g.refs("Load_Balancer_Group", []string{lbGroup}),
			"options": smap("always_learn_from_arp_request", "false", "chassis", "chassis-"+sw,
				"dynamic_neigh_routers", "true", "lb_force_snat_ip", "router_ip", "snat-ct-zone", "0"),
			"external_ids": smap("physical_ip", nodeIP.String(), "physical_ips", nodeIP.String()),
		}),
		g.insert("Logical_Switch_Port", etor, routerLSP(etor, rtoe)),
		g.insert("Logical_Switch_Port", localnet, map[string]any{
			"name": localnet, "type": "localnet", "addresses": "unknown", "options": smap("network_name", "physnet"),
		}),
		g.insert("Logical_Switch", ext, map[string]any{
			"name": ext, "ports": g.refs("Logical_Switch_Port", []string{etor, localnet}),
		}),
		g.insert("Logical_Switch_Port", jtor, routerLSP(jtor, rtoj)),
		g.mutateInsert("Logical_Switch", joinSwitch, "ports", "Logical_Switch_Port", jtor),
	}
	g.topo.NodeSwitches = append(g.topo.NodeSwitches, sw)
	g.unit(ops...)
}

// portGroup writes a port group over the named switch ports with ACLs,
// each given as direction, priority, match, action, apply-after-lb.
func (g *gen) portGroup(name string, ports []string, acls ...acl) {
	var ops []op
	var keys []string
	for i, a := range acls {
		key := fmt.Sprintf("%s/%d", name, i)
		row := map[string]any{"direction": a.dir, "priority": a.prio, "match": a.match, "action": a.action}
		if a.afterLB {
			row["options"] = smap("apply-after-lb", "true")
		}
		ops = append(ops, g.insert("ACL", key, row))
		keys = append(keys, key)
	}
	ops = append(ops, g.insert("Port_Group", name, map[string]any{
		"name": name, "ports": g.refs("Logical_Switch_Port", ports), "acls": g.refs("ACL", keys),
	}))
	g.unit(ops...)
}

type acl struct {
	dir     string
	prio    int
	match   string
	action  string
	afterLB bool // egress ACLs of ovn-kubernetes apply after load balancing
}

// defaultPortGroups writes ovn-kubernetes' cluster-wide port groups: the
// management ports (multicast denied) and the node switches' router ports
// (multicast allowed).
func (g *gen) defaultPortGroups() {
	var mgmt, rtr []string
	for n := range g.o.Nodes {
		mgmt = append(mgmt, "k8s-"+nodeName(n))
		rtr = append(rtr, "stor-"+nodeName(n))
	}
	g.portGroup("clusterPortGroup", mgmt,
		acl{"from-lport", 1011, "inport == @clusterPortGroup && ip4.mcast", "drop", true},
		acl{"to-lport", 1011, "outport == @clusterPortGroup && ip4.mcast", "drop", false})
	g.portGroup("clusterRtrPortGroup", rtr,
		acl{"from-lport", 1012, "inport == @clusterRtrPortGroup && ip4.mcast", "allow", true},
		acl{"to-lport", 1012, "outport == @clusterRtrPortGroup && ip4.mcast", "allow", false})
}

// networkPolicies writes the network policies: policy q lives in namespace
// q mod Namespaces, selects PolicyPods of its pods, allows ingress from a
// random peer namespace's address set (every other one on TCP 8080 only),
// and every fourth also allows egress to a peer namespace. Each namespace
// with policies gets ovn-kubernetes' default-deny port groups over the pods
// its policies select.
func (g *gen) networkPolicies() {
	type nsDeny struct {
		ingress, egress []string
		hasEgress       bool
	}
	deny := make([]nsDeny, g.o.Namespaces)
	for q := range g.o.Policies {
		k := q % g.o.Namespaces
		members := g.byNS[k]
		var ports []string
		for _, i := range g.rng.Perm(len(members))[:min(g.o.PolicyPods, len(members))] {
			ports = append(ports, g.pods[members[i]].name)
		}
		slices.Sort(ports)
		name := fmt.Sprintf("np_%s_p%d", nsName(k), q)
		peer := addressSetName(nsName(g.rng.IntN(g.o.Namespaces)))
		in := fmt.Sprintf("ip4.src == {$%s} && outport == @%s", peer, name)
		if q%2 == 1 {
			in = fmt.Sprintf("ip4.src == {$%s} && tcp && tcp.dst == %d && outport == @%s", peer, backendPort, name)
		}
		acls := []acl{{"to-lport", 1001, in, "allow-related", false}}
		deny[k].ingress = append(deny[k].ingress, ports...)
		if q%4 == 0 {
			peer := addressSetName(nsName(g.rng.IntN(g.o.Namespaces)))
			acls = append(acls, acl{"from-lport", 1001, fmt.Sprintf("ip4.dst == {$%s} && inport == @%s", peer, name), "allow-related", true})
			deny[k].egress = append(deny[k].egress, ports...)
			deny[k].hasEgress = true
		}
		g.portGroup(name, ports, acls...)
	}
	for k, d := range deny {
		if len(d.ingress) > 0 {
			pg := nsName(k) + "_ingressDefaultDeny"
			g.portGroup(pg, dedup(d.ingress),
				acl{"to-lport", 1000, "outport == @" + pg, "drop", false},
				acl{"to-lport", 1001, "outport == @" + pg + " && (arp || nd)", "allow", false})
		}
		if d.hasEgress {
			pg := nsName(k) + "_egressDefaultDeny"
			g.portGroup(pg, dedup(d.egress),
				acl{"from-lport", 1000, "inport == @" + pg, "drop", true},
				acl{"from-lport", 1001, "inport == @" + pg + " && (arp || nd)", "allow", true})
		}
	}
}

func dedup(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// pack marshals the units and packs consecutive ones into transactions of
// at most MaxTransactionBytes.
func (g *gen) pack() error {
	const head = `["OVN_Northbound"`
	var cur []byte
	flush := func() {
		if cur != nil {
			g.topo.Transactions = append(g.topo.Transactions, json.RawMessage(append(cur, ']')))
			cur = nil
		}
	}
	for _, u := range g.units {
		var body []byte
		for _, o := range u {
			b, err := json.Marshal(o)
			if err != nil {
				return fmt.Errorf("topology: %w", err)
			}
			body = append(append(body, ','), b...)
		}
		if len(head)+len(body)+1 > MaxTransactionBytes {
			return fmt.Errorf("topology: the %s row %s and its children need %d bytes, more than a transaction's %d", u[0]["table"], u[0]["uuid"], len(head)+len(body)+1, MaxTransactionBytes)
		}
		if cur != nil && len(cur)+len(body)+1 > MaxTransactionBytes {
			flush()
		}
		if cur == nil {
			cur = []byte(head)
		}
		cur = append(cur, body...)
	}
	flush()
	return nil
}
