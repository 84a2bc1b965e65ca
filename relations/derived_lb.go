package relations

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// LBNeighborMode is a load balancer's options:neighbor_responder: which of
// its VIPs the routers it is attached to answer ARP and ND for.
type LBNeighborMode uint8

const (
	// LBNeighborReachable answers for VIPs in a subnet of a router port
	// (the default).
	LBNeighborReachable LBNeighborMode = iota
	// LBNeighborAll answers for every VIP.
	LBNeighborAll
	// LBNeighborNone answers for none.
	LBNeighborNone
)

// LBOptions are a load balancer's settings that its flows read (lib/lb.c
// ovn_northd_lb_create), with 23.03's defaults.
type LBOptions struct {
	// Proto is the protocol column: "tcp" (the default), "udp" or "sctp".
	Proto string
	// HairpinSNATIP is options:hairpin_snat_ip when it is one IPv4
	// address (ovn_northd_lb_init's ip_parse), else "".
	HairpinSNATIP string
	// HashFields is selection_fields as northd writes it in
	// ct_lb_mark(...; hash_fields="..."): tp_src and tp_dst named after the
	// protocol when the protocol column is set. Empty without fields.
	HashFields string
	// SkipSNAT is options:skip_snat: routers do not SNAT its traffic even
	// when they force SNAT for load balancers.
	SkipSNAT bool
	// Reject is options:reject: a VIP without backends rejects instead of
	// dropping.
	Reject bool
	// Event is options:event: a VIP without backends raises an
	// empty_lb_backends controller event.
	Event bool
	// AffinityTimeout is options:affinity_timeout in seconds (at most
	// 65535): new connections from a client go to the backend it reached
	// last within that time. Zero disables affinity.
	AffinityTimeout int
	// Neighbor is options:neighbor_responder.
	Neighbor LBNeighborMode
	// Routable is options:add_route: routers advertise the VIPs as routes.
	Routable bool
	// Template is options:template: VIPs and backends are written with
	// ^variables that ovn-controller expands per chassis
	// (Chassis_Template_Var), so northd copies them as they are.
	Template bool
	// Distributed is options:distributed (26.03, distributedLBs): each
	// chassis balances over the backends bound to it (ct_lb_mark_local),
	// the ones ip_port_mappings name a logical port for, and the routers
	// that list the load balancer stop centralizing their traffic on the
	// gateway chassis (NB.RoutersWithDistributedLB).
	Distributed bool
	// StatelessNAT is options:use_stateless_nat (read by 26.03 only):
	// routers pick a backend by hash and rewrite addresses without
	// conntrack.
	StatelessNAT bool
}

// distributedLBs: 26.03 reads a load balancer's options:distributed.
func distributedLBs(rel schema.Release) bool { return rel >= schema.OVN2603 }

// LoadBalancer is a load balancer's settings, as a value: changing its VIPs
// leaves it unchanged.
type LoadBalancer struct {
	UUID string
	LBOptions
}

// LBBackend is one backend of a VIP as northd parsed it, with the service
// monitor settings that ip_port_mappings give it.
type LBBackend struct {
	IP   string // the address as northd prints it (ip_str)
	Port string // the port (port_str), "" when it has none
	// Mapped: northd read the backend's ip_port_mappings entry, which it
	// reads for the VIPs with a health check and those of a distributed
	// load balancer.
	Mapped bool
	// MonitorPort is the logical port ip_port_mappings names for the
	// backend, "" when there is no mapping.
	MonitorPort string
	// MonitorSrcIP is the source address of health check probes from the
	// mapping, "" when it is missing or not an address.
	MonitorSrcIP string
	// Zone is the availability zone of a remote backend, which 26.03's
	// mapping names after the source address (mappingNamesZone); "" for
	// a local one.
	Zone string
	// MappingProblem is the warning northd logs when it cannot read the
	// backend's mapping, "" when it can or there is none.
	MappingProblem string
	// Template: a template VIP's backend read as a template (IP and port
	// copied as written), whose port northd knows as no number.
	Template bool
}

// Remote reports whether the backend is in another availability zone:
// its monitor is made whether or not the port is here, and
// ovn-ic carries it to the backend's zone.
func (b LBBackend) Remote() bool { return b.Zone != "" }

// LBBackends is a VIP's list of backends in an encoding that keeps LBVIP
// comparable; All decodes it.
type LBBackends string

// Field and record separators of LBBackends: no parsed backend or port name
// of a mapping holds them.
const (
	lbFieldSep  = "\x1f"
	lbRecordSep = "\x1e"
)

func encodeBackends(bs []LBBackend) LBBackends {
	recs := make([]string, len(bs))
	for i, b := range bs {
		flags := ""
		if b.Mapped {
			flags += "m"
		}
		if b.Template {
			flags += "t"
		}
		recs[i] = strings.Join([]string{b.IP, b.Port, flags, b.MonitorPort, b.MonitorSrcIP, b.Zone, b.MappingProblem}, lbFieldSep)
	}
	return LBBackends(strings.Join(recs, lbRecordSep))
}

// All returns the backends in the order of the vips value.
func (b LBBackends) All() []LBBackend {
	if b == "" {
		return nil
	}
	recs := strings.Split(string(b), lbRecordSep)
	out := make([]LBBackend, len(recs))
	for i, r := range recs {
		f := strings.SplitN(r, lbFieldSep, 7)
		out[i] = LBBackend{IP: f[0], Port: f[1], Mapped: strings.Contains(f[2], "m"), MonitorPort: f[3], MonitorSrcIP: f[4], Zone: f[5],
			MappingProblem: f[6], Template: strings.Contains(f[2], "t")}
	}
	return out
}

// LBVIP is one VIP of a load balancer as northd reads it (lib/lb.c
// ovn_lb_vip_init): "IP[:PORT]" or "[IPv6]:PORT" mapped to a comma-separated
// list of backends of the same form. A VIP with a backend northd cannot read
// is left out whole (Step reports it). A template load balancer's VIP is
// "VIP[:PORT]" and its backends "IP[:PORT]", each part a ^variable or
// literal text, copied as written; its family is options:address-family.
type LBVIP struct {
	LB   string // NB _uuid of the load balancer
	Key  string // the vips key as written
	IP   string // the VIP address as northd prints it (vip_str)
	Port string // the VIP port (port_str), "" when it has none
	IPv6 bool   // the VIP is an IPv6 address (address_family AF_INET6)
	// BackendIPs is the vips value as written: the backends of ct_lb_mark
	// when the VIP has no health check.
	BackendIPs string
	Backends   LBBackends
	// NBackends is the number of backends northd read.
	NBackends int
	// HealthCheck: a Load_Balancer_Health_Check of the load balancer names
	// this VIP (northd ignores health checks of SCTP and template load
	// balancers).
	HealthCheck bool
	// Targets is what ct_lb_mark balances over (backends=...): BackendIPs,
	// or with a health check the backends whose monitor can run (see
	// deriveLBVIPs), and NTargets how many there are.
	Targets  string
	NTargets int
	LBOptions
}

// LBScope says that load balancer LB applies to the datapaths in scope
// Scope: the _uuid of a Load_Balancer_Group that holds it, or of a switch
// or router that lists it in its load_balancer column. A load balancer in a
// group on 200 datapaths is then one tuple, not 200, and so are the flows
// that are the same on each datapath of the scope.
type LBScope struct {
	LB    string // NB _uuid of the load balancer
	Scope string
}

// ScopeDatapath puts switch or router Datapath (an NB _uuid) in load
// balancer scope Scope: the datapath lists the group Scope in its
// load_balancer_group column, or is Scope and lists load balancers itself.
type ScopeDatapath struct {
	Scope    string
	Datapath string
}

// LBIP is a VIP address of a load balancer, with what routers do with it.
type LBIP struct {
	LB       string // NB _uuid of the load balancer
	IP       string // as northd prints it
	IPv6     bool
	Neighbor LBNeighborMode
	Routable bool
}

// ScopedLBIP is a VIP address of a load balancer in scope Scope.
type ScopedLBIP struct {
	Scope string
	LBIP
}

// LBGlobalOptions are the NB_Global options that load balancer flows read.
type LBGlobalOptions struct {
	// SvcMonitorMAC is options:svc_monitor_mac as northd prints it, the
	// source MAC of health check probes; "" when missing or unreadable
	// (northd then makes one up and stores it in NB_Global).
	SvcMonitorMAC string
	// SvcMonitorMACDst is options:svc_monitor_mac_dst likewise (26.03):
	// the destination MAC of the service monitor's replies.
	SvcMonitorMACDst string
	// ControllerEvent is options:controller_event: every load balancer
	// raises empty_lb_backends events.
	ControllerEvent bool
	// InstallLSLBFromRouter is options:install_ls_lb_from_router: the load
	// balancers of a router apply to the switches its ports connect to.
	InstallLSLBFromRouter bool
}

// RouterLBConfig is what a router's load balancer flows read of the router
// (one tuple per enabled router).
type RouterLBConfig struct {
	Router string // NB _uuid of the router
	// Gateway: the router is an L3 gateway router (options:chassis).
	Gateway bool
	// DGPs counts the router's distributed gateway ports; DGP names the
	// one northd uses for load balancing (RouterGateway.FirstDGP), "" when
	// there is none.
	DGPs int
	DGP  string
	// ForceSNATRouterIP is options:lb_force_snat_ip=router_ip on a gateway
	// router: load-balanced traffic is SNATed to the IP of the port it
	// leaves from.
	ForceSNATRouterIP bool
	// ForceSNATIPv4 and ForceSNATIPv6 are the addresses of
	// options:lb_force_snat_ip otherwise, as northd prints them; "" when
	// unset.
	ForceSNATIPv4, ForceSNATIPv6 string
	// HasLBVIP: a load balancer with a VIP applies to the router directly or
	// through a group (od->has_lb_vip).
	HasLBVIP bool
}

// ForceSNAT reports whether load-balanced traffic leaving the router is
// SNATed (lb_force_snat_addrs or lb_force_snat_router_ip).
func (r RouterLBConfig) ForceSNAT() bool {
	return r.ForceSNATRouterIP || r.ForceSNATIPv4 != "" || r.ForceSNATIPv6 != ""
}

// RouterLBIP is a VIP address of a load balancer of a router (one of
// od->lb_ips).
type RouterLBIP struct {
	Router string // NB _uuid of the router
	IP     string // as northd prints it
	IPv6   bool
}

// lbRow is one VIP of a load balancer row, before it is read.
type lbRow struct {
	LB  *nb.LoadBalancer
	Key string
}

// lbKey names a VIP of a load balancer.
type lbKey struct{ LB, Key string }

func (v LBVIP) key() lbKey { return lbKey{v.LB, v.Key} }

// V4Mapped is northd's IN6_IS_ADDR_V4MAPPED test of the VIP address, which
// some flows use instead of the family: true for IPv4 VIPs, false for IPv6
// and for template VIPs, whose address northd leaves unparsed (all zeros).
func (v LBVIP) V4Mapped() bool { return !v.IPv6 && !v.Template }

// readLBOptions reads a load balancer's options as ovn_northd_lb_create
// does. The error lists the values northd logs and corrects.
func readLBOptions(rel schema.Release, lb *nb.LoadBalancer) (LBOptions, error) {
	o := LBOptions{Proto: "tcp"}
	if ip, ok := lb.Options["hairpin_snat_ip"]; ok {
		if _, valid := ParseIPv4(ip); valid {
			o.HairpinSNATIP = ip
		}
	}
	proto := ""
	if lb.Protocol != nil {
		proto = string(*lb.Protocol)
	}
	if proto == "udp" || proto == "sctp" {
		o.Proto = proto
	}
	if len(lb.SelectionFields) > 0 {
		fields := make([]string, len(lb.SelectionFields))
		for i, f := range lb.SelectionFields {
			fields[i] = string(f)
		}
		// OVSDB sets are sorted: northd reads them in that order.
		slices.Sort(fields)
		for i, f := range fields {
			if proto != "" && (f == "tp_src" || f == "tp_dst") {
				fields[i] = proto + f[2:]
			}
		}
		o.HashFields = strings.Join(fields, ",")
	}
	o.SkipSNAT = SmapBool(lb.Options, "skip_snat", false)
	o.Reject = SmapBool(lb.Options, "reject", false)
	o.Event = SmapBool(lb.Options, "event", false)
	o.Template = SmapBool(lb.Options, "template", false)
	o.Distributed = distributedLBs(rel) && SmapBool(lb.Options, "distributed", false)
	o.StatelessNAT = SmapBool(lb.Options, "use_stateless_nat", false)
	var errs []error
	o.Routable = SmapBool(lb.Options, "add_route", false)
	if o.Template && o.Routable {
		errs = append(errs, errors.New("template load balancers do not support option 'add_route', forcing it to disabled"))
		o.Routable = false
	}
	t := SmapUint(lb.Options, "affinity_timeout", 0)
	if t > math.MaxUint16 {
		errs = append(errs, fmt.Errorf("max affinity_timeout timeout value is %d", math.MaxUint16))
		t = math.MaxUint16
	}
	o.AffinityTimeout = int(t)
	// Templates answer for no VIP unless asked, and cannot check which
	// ones are reachable.
	def, defName := LBNeighborReachable, "reachable"
	if o.Template {
		def, defName = LBNeighborNone, "none"
	}
	switch mode, ok := lb.Options["neighbor_responder"]; {
	case !ok:
		o.Neighbor = def
	case mode == "reachable" && !o.Template:
		o.Neighbor = LBNeighborReachable
	case mode == "all":
		o.Neighbor = LBNeighborAll
	case mode == "none":
		o.Neighbor = LBNeighborNone
	default:
		o.Neighbor = def
		errs = append(errs, fmt.Errorf("invalid neighbor responder mode %s, forcing it to %s", mode, defName))
	}
	if err := errors.Join(errs...); err != nil {
		return o, fmt.Errorf("load balancer %s: %w", lb.UUID, err)
	}
	return o, nil
}

// lbAddress is an address and port as OVS's inet_parse_active reads a load
// balancer key ("host[:port]", IPv6 hosts with a port in brackets).
type lbAddress struct {
	IP   string // as ss_format_address_nobracks prints it
	Port uint16 // 0 when there is none
	IPv6 bool
}

// unbracket strips the brackets around s as OVS's unbracket does: a
// leading '[' and, after it, a trailing ']'.
func unbracket(s string) string {
	if strings.HasPrefix(s, "[") {
		s = s[1:]
		s, _ = strings.CutSuffix(s, "]")
	}
	return s
}

// parseLBAddress reads s as OVS's inet_parse_active(s, 0, ..., false) does:
// a single colon outside brackets separates the port, more colons make the
// whole string an IPv6 host.
func parseLBAddress(s string) (lbAddress, error) {
	s = cString(s)
	colons, colon, inBrackets := 0, -1, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				colons++
				colon = i
			}
		}
	}
	host, port := s, ""
	hasPort := false
	if colons <= 1 {
		if colon >= 0 {
			host, port, hasPort = s[:colon], unbracket(s[colon+1:]), true
		}
		host = unbracket(host)
	}
	var a lbAddress
	if hasPort && port != "" {
		p, ok := strToInt(port)
		if !ok || p < 0 || p > math.MaxUint16 {
			return a, fmt.Errorf("bad port number %q", port)
		}
		a.Port = uint16(p)
	}
	ip, err := parseSockaddrHost(host)
	if err != nil {
		return a, err
	}
	a.IP, a.IPv6 = formatLBIP(ip), ip.Is6()
	return a, nil
}

// parseSockaddrHost reads a host as OVS's parse_sockaddr_components does
// without name resolution: an IPv6 address when it holds a colon (a scope
// after '%' is not supported here), else an IPv4 address.
func parseSockaddrHost(host string) (netip.Addr, error) {
	if strings.Contains(host, ":") {
		addr, scope, _ := strings.Cut(host, "%")
		if scope != "" {
			return netip.Addr{}, fmt.Errorf("IPv6 scope %q is not supported", scope)
		}
		ip, ok := ParseIPv6(addr)
		if addr == "" || !ok {
			return netip.Addr{}, fmt.Errorf("bad IPv6 address %q", addr)
		}
		return ip, nil
	}
	ip, ok := ParseIPv4(host)
	if !ok {
		return netip.Addr{}, fmt.Errorf("bad IP address %q", host)
	}
	return ip, nil
}

func formatLBIP(ip netip.Addr) string {
	if ip.Is4() {
		return ip.String()
	}
	return FormatIPv6(ip)
}

// strToInt is OVS's str_to_int(s, 10): strtoll on the whole string (leading
// white space and a sign allowed), within the range of a C int.
func strToInt(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// parseLBVIP reads one VIP of a load balancer, with a health check (hc)
// or not, as ovn_lb_vip_init does; any unreadable backend leaves the whole
// VIP out.
func parseLBVIP(rel schema.Release, r lbRow, hc bool) (LBVIP, error) {
	lb := r.LB
	v := LBVIP{LB: lb.UUID, Key: r.Key, BackendIPs: lb.Vips[r.Key], HealthCheck: hc}
	v.LBOptions, _ = readLBOptions(rel, lb)
	fail := func(err error) (LBVIP, error) {
		return LBVIP{}, fmt.Errorf("load balancer %s: VIP %q: %w", lb.UUID, r.Key, err)
	}
	var backends []LBBackend
	var err error
	if v.Template {
		parts := cTokens(r.Key, ":")
		if len(parts) == 0 || len(parts) > 2 {
			return fail(errors.New("should be a template of the form: '^vip_variable[:^port_variable|:port]'"))
		}
		family := lb.Options["address-family"]
		v.IP, v.IPv6 = parts[0], family != "" && family != "ipv4"
		if len(parts) == 2 {
			v.Port = parts[1]
		}
		if backends, err = templateVIPBackends(rel, lb, v); err != nil {
			return fail(err)
		}
	} else {
		vip, err := parseLBAddress(r.Key)
		if err != nil {
			return fail(fmt.Errorf("should be an IP address (or an IP address and a port number with : as a separator): %w", err))
		}
		v.IP, v.IPv6 = vip.IP, vip.IPv6
		if vip.Port != 0 {
			v.Port = strconv.Itoa(int(vip.Port))
		}
		if backends, err = explicitBackends(rel, lb, v); err != nil {
			return fail(err)
		}
	}
	v.Backends, v.NBackends = encodeBackends(backends), len(backends)
	v.Targets, v.NTargets = v.BackendIPs, v.NBackends
	if v.Distributed && !hc {
		v = withTargets(v, func(LBBackend) bool { return true })
	}
	return v, nil
}

// cTokens splits s at any byte of sep as strtok does: empty fields are
// dropped.
func cTokens(s, sep string) []string {
	return strings.FieldsFunc(cString(s), func(r rune) bool { return strings.ContainsRune(sep, r) })
}

// explicitBackends reads the backends of a VIP as
// ovn_lb_backends_init_explicit does: addresses of the VIP's family, with a
// port exactly when the VIP has one.
func explicitBackends(rel schema.Release, lb *nb.LoadBalancer, v LBVIP) ([]LBBackend, error) {
	var backends []LBBackend
	var errs []string
	for _, token := range cTokens(v.BackendIPs, ",") {
		if b, problem := explicitBackend(rel, lb, v, token); problem != "" {
			errs = append(errs, problem)
		} else {
			backends = append(backends, b)
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, ", "))
	}
	return backends, nil
}

// explicitBackend reads one backend "IP[:PORT]" of VIP v
// (ovn_lb_backend_init_explicit), or says why it cannot, and its
// ip_port_mappings entry when the VIP has a health check or its load
// balancer is distributed (ovn_lb_vip_backends_ip_port_mappings_init),
// where a distributed one's VIP without health check needs no source
// address.
func explicitBackend(rel schema.Release, lb *nb.LoadBalancer, v LBVIP, token string) (LBBackend, string) {
	b, err := parseLBAddress(token)
	if err == nil && b.IPv6 != v.IPv6 {
		return LBBackend{}, fmt.Sprintf("%s: IP address family is different from VIP %s", token, v.IP)
	}
	if err != nil || (v.Port != "") != (b.Port != 0) {
		if v.Port != "" {
			return LBBackend{}, token + ": should be an IP address and a port number with : as a separator"
		}
		return LBBackend{}, token + ": should be an IP address"
	}
	be := LBBackend{IP: b.IP}
	if b.Port != 0 {
		be.Port = strconv.Itoa(int(b.Port))
	}
	readBackendMapping(rel, lb, v, &be)
	return be, ""
}

// readBackendMapping reads backend b's ip_port_mappings entry where northd
// does: for a VIP with a health check, or of a distributed load balancer,
// where a VIP without health check needs no source address.
func readBackendMapping(rel schema.Release, lb *nb.LoadBalancer, v LBVIP, b *LBBackend) {
	if v.HealthCheck || v.Distributed {
		readMapping(rel, lb, b, !v.V4Mapped(), v.Distributed && !v.HealthCheck)
	}
}

// templateBackend reads a template VIP's backend "IP[:PORT]" as
// ovn_lb_backend_init_template does: its parts copied as they are.
func templateBackend(token string) (LBBackend, bool) {
	parts := cTokens(token, ":")
	if len(parts) == 0 || len(parts) > 2 {
		return LBBackend{}, false
	}
	b := LBBackend{IP: parts[0], Template: true}
	if len(parts) == 2 {
		b.Port = parts[1]
	}
	return b, true
}

// templateVIPBackends reads the backends of template VIP v: where
// backendsByToken, each ^variable one as a template and any other as an
// explicit address (26.03's ovn_lb_backends_init_template); else all as
// templates, or all as explicit addresses when one is no template (23.03).
func templateVIPBackends(rel schema.Release, lb *nb.LoadBalancer, v LBVIP) ([]LBBackend, error) {
	if !backendsByToken(rel) {
		var backends []LBBackend
		for _, token := range cTokens(v.BackendIPs, ",") {
			b, ok := templateBackend(token)
			if !ok {
				explicit, err := explicitBackends(rel, lb, v)
				if err != nil {
					return nil, fmt.Errorf("invalid backend: neither a template nor explicit (%w)", err)
				}
				return explicit, nil
			}
			backends = append(backends, b)
		}
		return backends, nil
	}
	var backends []LBBackend
	var errs []string
	for _, token := range cTokens(v.BackendIPs, ",") {
		if !strings.HasPrefix(token, "^") {
			if b, problem := explicitBackend(rel, lb, v, token); problem != "" {
				errs = append(errs, problem)
			} else {
				backends = append(backends, b)
			}
			continue
		}
		b, ok := templateBackend(token)
		if !ok {
			errs = append(errs, token+": should be a template of the form: '^backendip_variable1[:^port_variable1|:port]'")
			continue
		}
		readBackendMapping(rel, lb, v, &b)
		backends = append(backends, b)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid backend: template (%s)", strings.Join(errs, ", "))
	}
	return backends, nil
}

// backendsByToken: 26.03 reads a template VIP's backends one by one, a
// ^variable as a template and anything else as an explicit address, which
// a distributed load balancer's mapping then names (in brackets, as a
// template VIP has no IPv4 address).
func backendsByToken(rel schema.Release) bool { return rel >= schema.OVN2603 }

// SBVIPs is the vips column northd writes to a load balancer's SB row
// (ovn_northd_lb_get_vips): the NB column, except for an IPv6 template load
// balancer with readable VIPs, whose ^variable addresses get brackets (as
// ovn-controller expects them) and whose unreadable VIPs are left out.
func SBVIPs(rel schema.Release, lb *nb.LoadBalancer) map[string]string {
	if !SmapBool(lb.Options, "template", false) || lb.Options["address-family"] == "" || lb.Options["address-family"] == "ipv4" {
		return lb.Vips
	}
	out := map[string]string{}
	for k, value := range lb.Vips {
		v, err := parseLBVIP(rel, lbRow{lb, k}, false)
		if err != nil {
			continue
		}
		key := v.IP
		if strings.HasPrefix(key, "^") {
			key = "[" + key + "]"
		}
		if v.Port != "" {
			key += ":" + v.Port
		}
		out[key] = value
	}
	if len(out) == 0 {
		return lb.Vips
	}
	return out
}

// readMapping reads backend b's ip_port_mappings entry ("PORT:SRC_IP",
// keyed by the backend IP, in brackets for IPv6 VIPs) as northd's
// ovn_lb_svc_create does: the logical port and the probes' source address,
// or the warning northd logs when it cannot read them. 26.03
// (mappingNamesZone) reads "PORT:[SRC_IP]:ZONE" or "PORT:SRC_IP:ZONE", the
// zone of a remote backend, and with bare (a distributed load balancer's
// VIP without health check) a lone "PORT".
func readMapping(rel schema.Release, lb *nb.LoadBalancer, b *LBBackend, v6, bare bool) {
	key := b.IP
	if v6 {
		key = "[" + b.IP + "]"
	}
	m, ok := lb.IPPortMappings[key]
	if !ok {
		return
	}
	m = cString(m)
	port, src, ok := strings.Cut(m, ":")
	switch {
	case !ok && bare && m == "":
		b.MappingProblem = "Empty port name in distributed mode for IP " + key
		return
	case !ok && bare:
		b.MonitorPort, b.Mapped = m, true
		return
	case !ok:
		if mappingNamesZone(rel) {
			b.MappingProblem = "Expected ':' separator for: " + m
		}
		return
	}
	zone := ""
	if mappingNamesZone(rel) {
		var problem string
		if src, zone, problem = mappingSource(src); problem != "" {
			if problem == emptyZone {
				problem += port
			} else {
				problem += m
			}
			b.MappingProblem = problem
			return
		}
	}
	addr, err := parseSockaddrHost(unbracket(src))
	if err != nil {
		// inet_parse_address logs the first line, ovn_lb_svc_create the second.
		b.MappingProblem = fmt.Sprintf("%s: bad IP address %q; Invalid svc mon src IP %s", src, unbracket(src), src)
		if !mappingNamesZone(rel) {
			b.MonitorPort = port
		}
		return
	}
	b.MonitorPort, b.MonitorSrcIP, b.Zone, b.Mapped = port, formatLBIP(addr), zone, true
}

// mappingNamesZone: 26.03's ip_port_mappings may end in the availability
// zone of a remote backend, after the source address, which an IPv6
// address must then have in brackets; a mapping it cannot read names no
// port either (ovn_lb_vip_backends_ip_port_mappings_init).
func mappingNamesZone(rel schema.Release) bool { return rel >= schema.OVN2603 }

// The beginnings of 26.03's warnings about a mapping's "SRC_IP[:ZONE]";
// the first ends with the port's name, the other with the mapping.
const (
	emptyZone   = "Empty AZ name specified for backend "
	unclosedIP6 = "Malformed IPv6 address in backend "
)

// mappingSource is the source address and zone of a 26.03 mapping's
// "SRC_IP[:ZONE]" or "[SRC_IP][:ZONE]", or the beginning of the warning
// northd logs (emptyZone, unclosedIP6).
func mappingSource(s string) (src, zone, problem string) {
	hasZone := false
	if rest, ok := strings.CutPrefix(s, "["); ok {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", "", unclosedIP6
		}
		s, rest = rest[:end], rest[end+1:]
		zone, hasZone = strings.CutPrefix(rest, ":")
	} else {
		s, zone, hasZone = strings.Cut(s, ":")
	}
	switch {
	case !hasZone:
		return s, "", ""
	case zone == "":
		return "", "", emptyZone
	}
	return s, zone, ""
}

// healthChecksIgnored is why northd creates no health checks for the VIPs
// of a load balancer with options o (ovn_lb_get_health_check), nil when it
// creates them.
func healthChecksIgnored(o LBOptions) error {
	switch {
	case o.Proto == "sctp":
		return errors.New("SCTP load balancers do not support health checks")
	case o.Template:
		return errors.New("template load balancers do not support health checks")
	}
	return nil
}

// deriveLoadBalancers reads the load balancer rows' settings, and reports
// the options northd corrects.
func deriveLoadBalancers(n *NB) engine.Rel[LoadBalancer] {
	engine.Report(n.LoadBalancers.Rows, "load balancer options", func(lb *nb.LoadBalancer) error {
		_, err := readLBOptions(n.Release, lb)
		return err
	})
	return engine.Map(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) LoadBalancer {
		o, _ := readLBOptions(n.Release, lb)
		return LoadBalancer{UUID: lb.UUID, LBOptions: o}
	})
}

// monitoredPort is a logical port that a load balancer's ip_port_mappings
// name for a health-checked backend, with whether northd can monitor
// through it: it is on a switch and enabled.
type monitoredPort struct {
	LB, Port string
	Enabled  bool
}

// deriveLBVIPs reads the VIPs of every load balancer and
// decides what each balances over. A VIP with a health check balances only
// over the backends northd creates a Service_Monitor for (ovn_lb_svc_create:
// a mapping to an enabled switch port and a readable source IP); their
// status, which only ovn-controller sets, is taken as online.
func deriveLBVIPs(n *NB) engine.Rel[LBVIP] {
	rows := engine.FlatMap(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) []lbRow {
		out := make([]lbRow, 0, len(lb.Vips))
		for k := range lb.Vips {
			out = append(out, lbRow{lb, k})
		}
		return out
	})

	// The VIPs that a health check of their load balancer names, which
	// northd reads with it; it ignores health checks of SCTP and template
	// load balancers, with a warning for each VIP.
	checkRefs := engine.FlatMap(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) []ref {
		if o, _ := readLBOptions(n.Release, lb); healthChecksIgnored(o) != nil {
			return nil
		}
		return refs(lb.UUID, lb.HealthCheck)
	})
	checked := engine.Distinct(engine.Join(
		engine.IndexBy(checkRefs, byTarget),
		n.LoadBalancerChecks.ByUUID(),
		func(_ string, r ref, c *nb.LoadBalancerHealthCheck) lbKey { return lbKey{r.Owner, c.Vip} }))
	byKey := engine.IndexBy(rows, func(r lbRow) lbKey { return lbKey{r.LB.UUID, r.Key} })
	checkedIdx := engine.IndexBy(checked, func(k lbKey) lbKey { return k })
	parse := func(hc bool) func(lbRow) (LBVIP, error) {
		return func(r lbRow) (LBVIP, error) { return parseLBVIP(n.Release, r, hc) }
	}
	plain := engine.TryMap(engine.AntiJoin(byKey, checkedIdx), "load balancer VIP", parse(false))
	withCheck := engine.TryMap(engine.SemiJoin(byKey, checkedIdx), "load balancer VIP", parse(true))
	unchecked := engine.Filter(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) bool {
		o, _ := readLBOptions(n.Release, lb)
		return len(lb.HealthCheck) > 0 && healthChecksIgnored(o) != nil
	})
	engine.Report(engine.SemiJoin(engine.IndexBy(plain, func(v LBVIP) string { return v.LB }),
		engine.IndexBy(unchecked, func(lb *nb.LoadBalancer) string { return lb.UUID })),
		"load balancer health check", func(v LBVIP) error {
			return fmt.Errorf("load balancer %s: %w", v.LB, healthChecksIgnored(v.LBOptions))
		})
	reportMappingProblems(n, engine.Union(plain, withCheck))

	// The mapped ports of health-checked backends, and whether each is an
	// enabled port on a switch.
	mapped := engine.Distinct(engine.FlatMap(withCheck, func(v LBVIP) []ref {
		var out []ref
		for _, b := range v.Backends.All() {
			if b.MonitorPort != "" && b.MonitorSrcIP != "" {
				out = append(out, ref{v.LB, b.MonitorPort})
			}
		}
		return out
	}))
	ports := engine.Join(
		engine.IndexBy(mapped, byTarget),
		n.PortsOnSwitchesByName(),
		func(_ string, r ref, sp SwitchPort) monitoredPort {
			return monitoredPort{r.Owner, r.Target, sp.Port.Enabled == nil || *sp.Port.Enabled}
		})
	usable := engine.Collect(
		engine.IndexBy(engine.Filter(ports, func(p monitoredPort) bool { return p.Enabled }),
			func(p monitoredPort) string { return p.LB }),
		func(a, b monitoredPort) int { return cmp.Compare(a.Port, b.Port) })
	checkedByLB := engine.IndexBy(withCheck, func(v LBVIP) string { return v.LB })
	usableByLB := engine.IndexBy(usable, func(kv engine.KV[string, engine.Sorted[monitoredPort]]) string { return kv.Key })
	type vipPorts struct {
		V     LBVIP
		Ports engine.Sorted[monitoredPort]
	}
	withPorts := engine.IndexBy(engine.Union(
		engine.Join(checkedByLB, usableByLB, func(_ string, v LBVIP, u engine.KV[string, engine.Sorted[monitoredPort]]) vipPorts {
			return vipPorts{v, u.Value}
		}),
		engine.Map(engine.AntiJoin(checkedByLB, usableByLB), func(v LBVIP) vipPorts { return vipPorts{V: v} })),
		func(p vipPorts) lbKey { return p.V.key() })

	// The backends whose service monitor is down, by VIP.
	monitors := engine.FlatMap(withCheck, func(v LBVIP) []vipMonitor {
		var out []vipMonitor
		for _, b := range v.Backends.All() {
			out = append(out, vipMonitor{v.key(), monitorKey(v, b)})
		}
		return out
	})
	down := engine.IndexBy(engine.Collect(engine.IndexBy(engine.SemiJoin(
		engine.IndexBy(monitors, func(m vipMonitor) ServiceMonitorKey { return m.Key }),
		engine.IndexBy(n.MonitorsDown, func(k ServiceMonitorKey) ServiceMonitorKey { return k })),
		func(m vipMonitor) lbKey { return m.VIP }), func(a, b vipMonitor) int { return compareMonitorKeys(a.Key, b.Key) }),
		func(kv engine.KV[lbKey, engine.Sorted[vipMonitor]]) lbKey { return kv.Key })
	usableOf := func(p vipPorts, isDown map[ServiceMonitorKey]bool) func(LBBackend) bool {
		ok := map[string]bool{}
		for mp := range p.Ports.All() {
			ok[mp.Port] = true
		}
		return func(b LBBackend) bool { return (b.Remote() || ok[b.MonitorPort]) && !isDown[monitorKey(p.V, b)] }
	}
	return engine.Union(
		plain,
		engine.Join(withPorts, down, func(_ lbKey, p vipPorts, d engine.KV[lbKey, engine.Sorted[vipMonitor]]) LBVIP {
			isDown := map[ServiceMonitorKey]bool{}
			for m := range d.Value.All() {
				isDown[m.Key] = true
			}
			return withMonitoredTargets(p.V, usableOf(p, isDown))
		}),
		engine.Map(engine.AntiJoin(withPorts, down), func(p vipPorts) LBVIP {
			return withMonitoredTargets(p.V, usableOf(p, nil))
		}))
}

// reportMappingProblems logs the ip_port_mappings entries of the backends
// of vips that northd cannot read, one line per backend each time their
// load balancer's row changes, as northd parses the mappings of a changed
// row again (ovn_northd_lb_init).
func reportMappingProblems(n *NB, vips engine.Rel[LBVIP]) {
	type problem struct {
		LB      *nb.LoadBalancer
		VIP     string
		Backend int
		Text    string
	}
	withProblems := engine.Filter(vips, func(v LBVIP) bool {
		return slices.ContainsFunc(v.Backends.All(), func(b LBBackend) bool { return b.MappingProblem != "" })
	})
	problems := engine.JoinFlatMap(
		engine.IndexBy(withProblems, func(v LBVIP) string { return v.LB }),
		n.LoadBalancers.ByUUID(),
		func(_ string, v LBVIP, lb *nb.LoadBalancer) []problem {
			var out []problem
			for i, b := range v.Backends.All() {
				if b.MappingProblem != "" {
					out = append(out, problem{lb, v.Key, i, b.MappingProblem})
				}
			}
			return out
		})
	engine.Report(problems, "load balancer ip_port_mappings", func(p problem) error {
		return errors.New(p.Text)
	})
}

// vipMonitor is the service monitor of a backend of a VIP.
type vipMonitor struct {
	VIP lbKey
	Key ServiceMonitorKey
}

// monitorKey is the service monitor of a backend of a health-checked VIP.
func monitorKey(v LBVIP, b LBBackend) ServiceMonitorKey {
	port, _ := strconv.Atoi(b.Port)
	return ServiceMonitorKey{IP: b.IP, Port: port, LogicalPort: b.MonitorPort, Protocol: v.Proto}
}

// withMonitoredTargets sets the targets of a health-checked VIP to its
// backends whose mapped port is usable and whose monitor is not down.
func withMonitoredTargets(v LBVIP, usable func(LBBackend) bool) LBVIP {
	return withTargets(v, func(b LBBackend) bool { return b.MonitorPort != "" && b.MonitorSrcIP != "" && usable(b) })
}

// withTargets sets the targets of a VIP with a health check or of a
// distributed load balancer to the backends that target accepts, as
// build_lb_vip_actions lists them: a distributed one's after the logical
// port its mapping names, where ct_lb_mark_local finds it.
func withTargets(v LBVIP, target func(LBBackend) bool) LBVIP {
	var ts []string
	for _, b := range v.Backends.All() {
		if !target(b) || v.Distributed && !b.Mapped {
			continue
		}
		t := ""
		if v.Distributed {
			t = `"` + b.MonitorPort + `":`
		}
		port := b.Port
		if port == "" || b.Template {
			port = "0"
		}
		if v.IPv6 || b.Template {
			t += "[" + b.IP + "]:" + port
		} else {
			t += b.IP + ":" + port
		}
		ts = append(ts, t)
	}
	v.Targets, v.NTargets = strings.Join(ts, ","), len(ts)
	return v
}

// deriveLBGlobalOptions reads the NB_Global options of load balancing.
func deriveLBGlobalOptions(n *NB) engine.Rel[LBGlobalOptions] {
	return engine.Map(n.Global.Rows, func(g *nb.NBGlobal) LBGlobalOptions {
		o := LBGlobalOptions{
			ControllerEvent:       SmapBool(g.Options, "controller_event", false),
			InstallLSLBFromRouter: SmapBool(g.Options, "install_ls_lb_from_router", false),
		}
		for key, to := range map[string]*string{"svc_monitor_mac": &o.SvcMonitorMAC, "svc_monitor_mac_dst": &o.SvcMonitorMACDst} {
			if mac, err := ParseMAC(g.Options[key]); err == nil {
				*to = mac.String()
			}
		}
		return o
	})
}

// ownScopes computes the scopes of datapaths from their load_balancer
// column (lbs) and load_balancer_group column (groups): each group they
// list, and themselves when they list a load balancer.
func ownScopes(lbs, groups engine.Rel[Ref]) engine.Rel[ScopeDatapath] {
	return engine.Union(
		engine.Map(groups, func(r Ref) ScopeDatapath { return ScopeDatapath{Scope: r.Target, Datapath: r.Owner} }),
		engine.Distinct(engine.Map(lbs, func(r Ref) ScopeDatapath { return ScopeDatapath{Scope: r.Owner, Datapath: r.Owner} })))
}

// deriveLBScopes computes the scopes of every load balancer: the groups
// that hold it and the switches and routers that list it.
func deriveLBScopes(n *NB) engine.Rel[LBScope] {
	scope := func(r Ref) LBScope { return LBScope{LB: r.Target, Scope: r.Owner} }
	return engine.Union(engine.Map(n.Refs.LBGroupLBs, scope), engine.Map(n.Refs.SwitchLBs, scope), engine.Map(n.Refs.RouterLBs, scope))
}

// deriveLBVIPScopes computes the scopes that hold a load balancer with a
// VIP. has_lb_vip reads the NB rows: a VIP counts even if northd cannot
// read it.
func deriveLBVIPScopes(n *NB) engine.Rel[string] {
	withVIP := engine.Map(
		engine.Filter(n.LoadBalancers.Rows, func(lb *nb.LoadBalancer) bool { return len(lb.Vips) > 0 }),
		func(lb *nb.LoadBalancer) string { return lb.UUID })
	return engine.Distinct(engine.Join(
		n.LBScopesByLB,
		engine.IndexBy(withVIP, func(id string) string { return id }),
		func(_ string, s LBScope, _ string) string { return s.Scope }))
}

// deriveRouterLBScopes computes the scopes of enabled routers.
func deriveRouterLBScopes(n *NB) engine.Rel[ScopeDatapath] {
	enabled := engine.IndexBy(n.RouterConfigs, func(r RouterConfig) string { return r.UUID })
	return engine.SemiJoin(
		engine.IndexBy(ownScopes(n.Refs.RouterLBs, n.Refs.RouterLBGroups), func(s ScopeDatapath) string { return s.Datapath }),
		enabled)
}

// deriveSwitchLBScopes computes the scopes of switches, with those of the
// routers they connect to when NB_Global asks for it
// (build_lswitch_lbs_from_lrouter).
func deriveSwitchLBScopes(n *NB) engine.Rel[ScopeDatapath] {
	install := engine.Map(engine.Filter(n.LBGlobal, func(o LBGlobalOptions) bool { return o.InstallLSLBFromRouter }),
		func(LBGlobalOptions) struct{} { return struct{}{} })
	peers := engine.Distinct(engine.Map(n.LRPSwitchPeers, func(p LRPSwitchPeer) ref { return ref{p.LRP.Router, p.Switch} }))
	installedPeers := engine.Join(
		engine.IndexBy(peers, func(ref) struct{} { return struct{}{} }),
		engine.IndexBy(install, func(struct{}) struct{} { return struct{}{} }),
		func(_ struct{}, r ref, _ struct{}) ref { return r })
	fromRouters := engine.Join(
		n.RouterLBScopesByRouter,
		engine.IndexBy(installedPeers, byOwner),
		func(_ string, s ScopeDatapath, r ref) ScopeDatapath {
			return ScopeDatapath{Scope: s.Scope, Datapath: r.Target}
		})
	return engine.Distinct(engine.Union(n.switchOwnLBScopes, fromRouters))
}

// deriveRouterLBConfigs computes one RouterLBConfig per enabled router from
// its gateway and force SNAT facts (derived_gateway.go, derived_nat.go).
func deriveRouterLBConfigs(n *NB) engine.Rel[RouterLBConfig] {
	gws := engine.IndexBy(n.RouterGateways, func(g RouterGateway) string { return g.Router })
	force := engine.IndexBy(n.RouterForceSNATs, func(f RouterForceSNAT) string { return f.Router })
	fromGateway := func(g RouterGateway) RouterLBConfig {
		return RouterLBConfig{Router: g.Router, Gateway: g.Gateway, DGPs: g.DGPs, DGP: g.FirstDGP}
	}
	base := engine.Union(
		engine.Join(gws, force, func(_ string, g RouterGateway, f RouterForceSNAT) RouterLBConfig {
			c := fromGateway(g)
			c.ForceSNATRouterIP, c.ForceSNATIPv4, c.ForceSNATIPv6 = f.LBRouterIP, f.LB4, f.LB6
			return c
		}),
		engine.Map(engine.AntiJoin(gws, force), fromGateway))
	vipRouters := engine.Distinct(engine.Join(
		n.RouterLBScopesByScope,
		engine.IndexBy(n.lbVIPScopes, func(s string) string { return s }),
		func(_ string, s ScopeDatapath, _ string) string { return s.Datapath }))
	all := engine.IndexBy(base, func(c RouterLBConfig) string { return c.Router })
	vipIdx := engine.IndexBy(vipRouters, func(r string) string { return r })
	return engine.Union(
		engine.Map(engine.SemiJoin(all, vipIdx), func(c RouterLBConfig) RouterLBConfig {
			c.HasLBVIP = true
			return c
		}),
		engine.AntiJoin(all, vipIdx))
}

// deriveRouterLBIPs computes the VIP addresses of each router's load
// balancers (od->lb_ips) that the router answers ARP/ND for
// (build_lrouter_lb_reachable_ips): all of them, none, or by default those
// in a subnet of one of the router's ports; and those it advertises as
// routes (options:add_route). Every router's other VIP addresses are not
// kept (50k tuples on bench's topology): rules ask LBIPsOfRouters about the
// addresses they have.
func deriveRouterLBIPs(n *NB) (reachable, routable engine.Rel[RouterLBIP]) {
	toIP := func(r string, ip LBIP) RouterLBIP { return RouterLBIP{Router: r, IP: ip.IP, IPv6: ip.IPv6} }
	// The VIP addresses of each router's load balancers that keep accepts.
	onRouters := func(keep func(LBIP) bool) engine.Rel[RouterLBIP] {
		return engine.JoinFlatMap(n.RouterLBScopesByScope, n.ScopeLBIPs,
			func(_ string, s ScopeDatapath, ip ScopedLBIP) []RouterLBIP {
				if !keep(ip.LBIP) {
					return nil
				}
				return []RouterLBIP{toIP(s.Datapath, ip.LBIP)}
			})
	}
	lrps := engine.Join(n.RouterLBScopesByRouter, engine.IndexBy(n.LRPs, func(p LRP) string { return p.Router }),
		func(_ string, s ScopeDatapath, p LRP) engine.KV[string, LRP] {
			return engine.KV[string, LRP]{Key: s.Scope, Value: p}
		})
	inSubnet := engine.JoinFlatMap(
		engine.IndexBy(lrps, func(kv engine.KV[string, LRP]) string { return kv.Key }),
		n.ScopeLBIPs,
		func(_ string, kv engine.KV[string, LRP], ip ScopedLBIP) []RouterLBIP {
			if ip.Neighbor != LBNeighborReachable || !PortReaches(kv.Value.Net, ip.IP) {
				return nil
			}
			return []RouterLBIP{toIP(kv.Value.Router, ip.LBIP)}
		})
	all := onRouters(func(ip LBIP) bool { return ip.Neighbor == LBNeighborAll })
	reachable = engine.Distinct(engine.Union(all, inSubnet))
	routable = engine.Distinct(onRouters(func(ip LBIP) bool { return ip.Routable }))
	return reachable, routable
}

// LBsOnRouters keeps the tuples of xs whose load balancer applies to their
// router, as key names both: a join through the load balancer's scopes that
// keeps only the tuples that pass, not a relation of every router's load
// balancers.
func LBsOnRouters[T comparable](n *NB, xs engine.Rel[T], key func(T) (lb, router string)) engine.Rel[T] {
	type scoped struct {
		X     T
		Scope string
	}
	withScope := engine.Join(
		engine.IndexBy(xs, func(x T) string { lb, _ := key(x); return lb }),
		n.LBScopesByLB,
		func(_ string, x T, s LBScope) scoped { return scoped{x, s.Scope} })
	return engine.Distinct(engine.Map(engine.SemiJoin(
		engine.IndexBy(withScope, func(x scoped) ScopeDatapath {
			_, r := key(x.X)
			return ScopeDatapath{Scope: x.Scope, Datapath: r}
		}),
		n.routerLBScopesByPair), func(x scoped) T { return x.X }))
}

// PortReaches reports whether the address ip (as northd prints it) is in a
// subnet of the router port networks net (lrouter_port_ipv4_reachable,
// lrouter_port_ipv6_reachable).
func PortReaches(net *LPortAddresses, ip string) bool { return memberAddress(net, ip) != "" }

// LBIPsOfRouters keeps the tuples of xs whose address is a VIP address of
// a load balancer of their router (one of od->lb_ips), as key names both.
func LBIPsOfRouters[T comparable](n *NB, xs engine.Rel[T], key func(T) (router, ip string)) engine.Rel[T] {
	type withLB struct {
		X  T
		LB string
	}
	candidates := engine.Join(
		engine.IndexBy(xs, func(x T) string { _, ip := key(x); return ip }),
		n.LBVIPsByIP,
		func(_ string, x T, v LBVIP) withLB { return withLB{x, v.LB} })
	return engine.Distinct(engine.Map(
		LBsOnRouters(n, candidates, func(c withLB) (string, string) { r, _ := key(c.X); return c.LB, r }),
		func(c withLB) T { return c.X }))
}

// deriveLBScopeRelations computes the load balancer scopes that the
// switches' ACL facts read before the other load balancer relations.
func (n *NB) deriveLBScopeRelations() {
	n.LBScopes = deriveLBScopes(n)
	n.LBScopesByLB = engine.IndexBy(n.LBScopes, func(s LBScope) string { return s.LB })
	n.LBScopesByScope = engine.IndexBy(n.LBScopes, func(s LBScope) string { return s.Scope })
	n.lbVIPScopes = deriveLBVIPScopes(n)
	n.switchOwnLBScopes = ownScopes(n.Refs.SwitchLBs, n.Refs.SwitchLBGroups)
}

// templateVIPsFiledAsIPv6: 26.03 files the address of every template VIP
// among its load balancer's IPv6 addresses (ovn_northd_lb_init: a ^variable
// leaves the VIP's address zero, which is not IPv4-mapped), whatever
// options:address-family says; 23.03 by the VIP's family.
func templateVIPsFiledAsIPv6(r schema.Release) bool { return r >= schema.OVN2603 }

// deriveLBRelations computes the load balancer relations of n.
func (n *NB) deriveLBRelations() {
	n.LBGlobal = deriveLBGlobalOptions(n)
	n.LoadBalancerConfigs = deriveLoadBalancers(n)
	n.LBVIPs = deriveLBVIPs(n)
	n.LBVIPsByLB = engine.IndexBy(n.LBVIPs, func(v LBVIP) string { return v.LB })
	n.LBVIPsByIP = engine.IndexBy(n.LBVIPs, func(v LBVIP) string { return v.IP })
	// Backend changes stop here: the addresses stay.
	templatesV6 := templateVIPsFiledAsIPv6(n.Release)
	lbIPs := engine.Distinct(engine.Map(n.LBVIPs, func(v LBVIP) LBIP {
		return LBIP{LB: v.LB, IP: v.IP, IPv6: v.IPv6 || templatesV6 && v.Template, Neighbor: v.Neighbor, Routable: v.Routable}
	}))
	n.ScopeLBIPs = engine.IndexBy(engine.Join(n.LBScopesByLB, engine.IndexBy(lbIPs, func(ip LBIP) string { return ip.LB }),
		func(_ string, s LBScope, ip LBIP) ScopedLBIP { return ScopedLBIP{s.Scope, ip} }),
		func(ip ScopedLBIP) string { return ip.Scope })
	n.RouterLBScopes = deriveRouterLBScopes(n)
	n.RouterLBScopesByRouter = engine.IndexBy(n.RouterLBScopes, func(s ScopeDatapath) string { return s.Datapath })
	n.RouterLBScopesByScope = engine.IndexBy(n.RouterLBScopes, func(s ScopeDatapath) string { return s.Scope })
	n.routerLBScopesByPair = engine.IndexBy(n.RouterLBScopes, func(s ScopeDatapath) ScopeDatapath { return s })
	n.SwitchLBScopes = deriveSwitchLBScopes(n)
	n.RouterLBConfigs = deriveRouterLBConfigs(n)
	n.RouterLBConfigsByRouter = engine.IndexBy(n.RouterLBConfigs, func(c RouterLBConfig) string { return c.Router })
	n.RouterLBReachableIPs, n.RouterLBRoutableIPs = deriveRouterLBIPs(n)
	n.LBMonitorLRPs = deriveLBMonitorLRPs(n)
	n.RoutersWithDistributedLB = deriveRoutersWithDistributedLB(n)
}

// deriveRoutersWithDistributedLB computes the routers with a distributed
// load balancer (od->is_distributed): northd marks a router when it
// associates it with one of the load balancers its load_balancer column
// lists (handle_od_lb_datapath_modes), not with those of its groups.
func deriveRoutersWithDistributedLB(n *NB) engine.Rel[string] {
	distributed := engine.Filter(n.LoadBalancerConfigs, func(lb LoadBalancer) bool { return lb.Distributed })
	return engine.Distinct(engine.Join(
		engine.IndexBy(n.Refs.RouterLBs, byTarget),
		engine.IndexBy(distributed, func(lb LoadBalancer) string { return lb.UUID }),
		func(_ string, r Ref, _ LoadBalancer) string { return r.Owner }))
}

// LBMonitorLRP says that the health checks of load balancer LB through
// logical port Port probe from SrcIP, an address of router port LRP on
// Port's switch (ovn_northd_lb_backend_set_mon_port's svc_mon_lrp): the
// probes carry the router port's MAC, and the router port, not northd,
// answers ARP/ND for SrcIP.
type LBMonitorLRP struct {
	LB, Port, SrcIP string
	Switch          string // NB _uuid of Port's switch
	LRP             string // the router port's name
	MAC             string // its MAC
}

// monitorsFromRouterPorts: from 26.03 a health check source that is an
// address of a router port on the backend's switch is that port's.
func monitorsFromRouterPorts(r schema.Release) bool { return r >= schema.OVN2603 }

// deriveLBMonitorLRPs computes the LBMonitorLRPs: for each health-checked
// backend's mapping to an enabled switch port, the router ports on that
// switch whose router has the load balancer and whose address in SrcIP's
// subnet is SrcIP (lrp_find_member_ip); northd takes the first of the
// switch's router ports, here the least by name.
func deriveLBMonitorLRPs(n *NB) engine.Rel[LBMonitorLRP] {
	type source struct{ LB, Port, SrcIP string }
	sources := engine.Distinct(engine.FlatMap(n.LBVIPs, func(v LBVIP) []source {
		if !v.HealthCheck || !monitorsFromRouterPorts(n.Release) {
			return nil
		}
		var out []source
		for _, b := range v.Backends.All() {
			if b.MonitorPort != "" && b.MonitorSrcIP != "" && !b.Remote() {
				out = append(out, source{v.LB, b.MonitorPort, b.MonitorSrcIP})
			}
		}
		return out
	}))
	type onSwitch struct {
		source
		Switch string
	}
	switched := engine.Join(
		engine.IndexBy(sources, func(s source) string { return s.Port }),
		n.EnabledPortsByName(),
		func(_ string, s source, sp SwitchPort) onSwitch { return onSwitch{s, sp.Switch} })
	candidates := engine.JoinFlatMap(
		engine.IndexBy(switched, func(s onSwitch) string { return s.Switch }),
		engine.IndexBy(n.LRPSwitchPeers, func(p LRPSwitchPeer) string { return p.Switch }),
		func(_ string, s onSwitch, p LRPSwitchPeer) []engine.KV[string, LBMonitorLRP] {
			if memberAddress(p.LRP.Net, s.SrcIP) != s.SrcIP {
				return nil
			}
			return []engine.KV[string, LBMonitorLRP]{{Key: p.LRP.Router, Value: LBMonitorLRP{
				LB: s.LB, Port: s.Port, SrcIP: s.SrcIP, Switch: s.Switch, LRP: p.LRP.Name(), MAC: p.LRP.Net.MAC.String()}}}
		})
	onRouters := LBsOnRouters(n, candidates, func(c engine.KV[string, LBMonitorLRP]) (string, string) { return c.Value.LB, c.Key })
	return engine.Map(engine.Min(
		engine.IndexBy(engine.Map(onRouters, func(c engine.KV[string, LBMonitorLRP]) LBMonitorLRP { return c.Value }),
			func(m LBMonitorLRP) source { return source{m.LB, m.Port, m.SrcIP} }),
		func(a, b LBMonitorLRP) int { return cmp.Compare(a.LRP, b.LRP) }),
		func(kv engine.KV[source, LBMonitorLRP]) LBMonitorLRP { return kv.Value })
}

// memberAddress is the address of router port networks net in the subnet
// of ip (find_lport_address), "" when there is none.
func memberAddress(net *LPortAddresses, ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	if a.Is4() {
		for _, n := range net.IPv4 {
			if p, err := a.Prefix(n.Plen); err == nil && p.Addr() == n.Network {
				return n.AddrS
			}
		}
		return ""
	}
	for _, n := range net.IPv6 {
		if p, err := a.Prefix(n.Plen); err == nil && p.Addr() == n.Network {
			return n.AddrS
		}
	}
	return ""
}
