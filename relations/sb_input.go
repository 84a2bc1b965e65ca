package relations

import (
	"cmp"
	"slices"

	"github.com/northlog/northlog/engine"
)

// ServiceMonitorKey identifies an SB Service_Monitor as northd finds it
// (create_or_get_service_mon): the backend's address and port (0 without
// one), the logical port its probes go through, and the load balancer's
// protocol.
type ServiceMonitorKey struct {
	IP          string
	Port        int
	LogicalPort string
	Protocol    string
}

func compareMonitorKeys(a, b ServiceMonitorKey) int {
	return cmp.Or(cmp.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port),
		cmp.Compare(a.LogicalPort, b.LogicalPort), cmp.Compare(a.Protocol, b.Protocol))
}

// newMonitorsDown makes the one input the rules read from the SB rather
// than the NB: the service monitors that are down.
func newMonitorsDown(c *engine.Circuit) (*engine.Input[ServiceMonitorKey], engine.Rel[ServiceMonitorKey]) {
	return engine.NewInput[ServiceMonitorKey](c, "SB Service_Monitor down")
}

// SetMonitorDown records whether a service monitor is down: its status, as
// northd leaves it in the SB, is set and not online. The backends of such
// monitors are left out of their VIPs' targets (build_lb_vip_actions).
// Only a northd that reads the SB feeds it; without it, no monitor is down.
func (n *NB) SetMonitorDown(k ServiceMonitorKey, down bool) { n.monitorsDown.Set(k, down) }

// newMonitorsOnline makes the input of the service monitors that are
// online.
func newMonitorsOnline(c *engine.Circuit) (*engine.Input[ServiceMonitorKey], engine.Rel[ServiceMonitorKey]) {
	return engine.NewInput[ServiceMonitorKey](c, "SB Service_Monitor online")
}

// SetMonitorOnline records whether a service monitor is online: its
// status, as northd leaves it in the SB, is online. A network function
// with a health check is healthy only then (network_function_update_active).
// Only a northd that reads the SB feeds it; without it, no monitor is
// online.
func (n *NB) SetMonitorOnline(k ServiceMonitorKey, online bool) { n.monitorsOnline.Set(k, online) }

// IGMPEntry is one port of one SB IGMP_Group row, a group that
// ovn-controller learnt on a datapath through IGMP/MLD snooping: the row's
// _uuid, its datapath (the NB _uuid), its address as written ("mrouters"
// for the multicast routers seen) and a port's logical_port.
type IGMPEntry struct {
	Row, Datapath, Address, Port string
}

// newIGMPEntries makes the input of the IGMP_Group rows' ports.
func newIGMPEntries(c *engine.Circuit) (*engine.Input[IGMPEntry], engine.Rel[IGMPEntry]) {
	return engine.NewInput[IGMPEntry](c, "SB IGMP_Group")
}

// SetIGMPEntry records whether an IGMP_Group row has a port. Only a
// northd that reads the SB feeds it, with the rows that have a chassis
// and a datapath; without it, no group is learnt.
func (n *NB) SetIGMPEntry(e IGMPEntry, in bool) { n.igmpEntries.Set(e, in) }

// VirtualParent is a virtual port that a parent claims: ovn-controller set
// its SB Port_Binding's virtual_parent to the parent's name, and its
// chassis.
type VirtualParent struct {
	Port, Parent string
}

// newVirtualParents makes the input of the claimed virtual ports.
func newVirtualParents(c *engine.Circuit) (*engine.Input[VirtualParent], engine.Rel[VirtualParent]) {
	return engine.NewInput[VirtualParent](c, "SB Port_Binding virtual_parent")
}

// SetVirtualParent records whether a parent claims a virtual port. Only a
// northd that reads the SB feeds it; without it, no virtual port is
// claimed.
func (n *NB) SetVirtualParent(v VirtualParent, in bool) { n.virtualParents.Set(v, in) }

// LearnedRoute is an SB Learned_Route row, a route ovn-controller learnt
// through dynamic routing on a router port: the row's _uuid, its datapath
// (the router's NB _uuid), the port's name, and its prefix and next hop as
// written.
type LearnedRoute struct {
	Row, Datapath, Port, Prefix, Nexthop string
}

// newLearnedRoutes makes the input of the Learned_Route rows.
func newLearnedRoutes(c *engine.Circuit) (*engine.Input[LearnedRoute], engine.Rel[LearnedRoute]) {
	return engine.NewInput[LearnedRoute](c, "SB Learned_Route")
}

// SetLearnedRoute records whether a Learned_Route row exists. Only a
// northd that reads the SB, or an offline computation given the rows,
// feeds it; without it, no route is learnt.
func (n *NB) SetLearnedRoute(r LearnedRoute, in bool) { n.learnedRoutes.Set(r, in) }

// BoundQueueID is the qdisc_queue_id a switch port's SB Port_Binding holds
// in its options, as northd reads it (smap_get_int): a positive number.
type BoundQueueID struct {
	Port string
	ID   int
}

// SetBoundQueueID records whether a port's binding holds a queue id. Only
// a northd that reads the SB, or an offline computation given the SB's
// bindings, feeds it; without it, every port with QoS options is given a
// new one (derived_queues.go).
func (n *NB) SetBoundQueueID(q BoundQueueID, in bool) { n.boundQueueIDs.Set(q, in) }

// Chassis is what northd reads of an SB Chassis row to find it by name.
type Chassis struct {
	UUID, Name, Hostname string
	// Remote is other_config:is-remote: a chassis of another availability
	// zone, known through OVN interconnection.
	Remote bool
}

// RemoteChassisNames are the names under which northd's chassis_lookup
// finds a remote chassis among chassis: its name, and its hostname when no
// chassis has that name and it is the first chassis, by _uuid, of that
// hostname (the one the SB writer finds, sbwriter.Writer.chassisNamed).
func RemoteChassisNames(chassis []Chassis) []string {
	names := map[string]bool{}
	byHost := map[string]Chassis{}
	for _, c := range chassis {
		names[c.Name] = true
		if first, ok := byHost[c.Hostname]; !ok || c.UUID < first.UUID {
			byHost[c.Hostname] = c
		}
	}
	var out []string
	for _, c := range chassis {
		if !c.Remote {
			continue
		}
		out = append(out, c.Name)
		if c.Hostname != "" && !names[c.Hostname] && byHost[c.Hostname].UUID == c.UUID {
			out = append(out, c.Hostname)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// SetRemoteChassisName records whether northd finds a remote chassis by
// name (RemoteChassisNames): a router port that requests it is a transit
// router's remote port. Only a northd that reads the SB, or an offline
// computation given its chassis, feeds it; without it, no chassis is
// remote.
func (n *NB) SetRemoteChassisName(name string, in bool) { n.remoteChassisNames.Set(name, in) }
