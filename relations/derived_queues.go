package relations

import (
	"slices"
	"strconv"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/schema"
)

// QueueID is the options:qdisc_queue_id of a switch port's Port_Binding,
// which the port's flows copy as text (build_lswitch_port_sec_op). QoS
// marks an id northd gave the port for its QoS options, which the binding
// adds to the NB options; otherwise the id is the NB options' own, copied
// with them.
type QueueID struct {
	Port string
	ID   string
	QoS  bool
}

// SharesQueueIDs: 26.03 gives every switch port with QoS options a queue
// id, bound to a chassis or not, from one pool for the whole SB
// (allocate_queueid); 23.03 from a pool per chassis, so only to the ports
// a chassis claimed, and to a localnet port, which counts its queues on
// its own binding (allocate_chassis_queueid).
func SharesQueueIDs(r schema.Release) bool { return r >= schema.OVN2603 }

// maxQueueID is the largest queue id northd gives (QDISC_MAX_QUEUE_ID).
const maxQueueID = 0xf000

// queueClaim is a port with QoS options for the queue id allocation: the
// id its binding keeps, or 0 for one that needs a new id.
type queueClaim struct {
	Port string
	ID   int
}

// QueueIDsByPort is QueueIDs arranged by port name, one arrangement for
// the rules that give a port its queue.
func (n *NB) QueueIDsByPort() engine.Index[string, QueueID] {
	return arranged(&n.queueIDsByPort, n.QueueIDs, func(q QueueID) string { return q.Port })
}

// deriveQueueIDs computes the queue ids of the switch ports' bindings
// (ovn_port_update_sbrec). A port with QoS options keeps the id its
// binding holds (BoundQueueIDs); one without gets the lowest id no port
// keeps (26.03: in name order, where northd takes its ports in hash
// order) or, in 23.03, id 1 on a localnet port's own binding and none
// without a chassis. A port without QoS options, or one left without an
// id, has the qdisc_queue_id of its NB options, if any. Router-type ports'
// bindings copy no NB options.
func deriveQueueIDs(n *NB) engine.Rel[QueueID] {
	ports := n.NonRouterLSPsByName()
	qos := engine.IndexBy(engine.Filter(n.LSPs, func(p LSP) bool { return p.Port.Type != LSPTypeRouter && p.HasQoS() }), LSP.Name)
	bound := engine.IndexBy(n.BoundQueueIDs, func(q BoundQueueID) string { return q.Port })
	kept := engine.Join(qos, bound, func(port string, _ LSP, q BoundQueueID) queueClaim {
		return queueClaim{Port: port, ID: q.ID}
	})
	unbound := engine.AntiJoin(qos, bound)
	var given engine.Rel[queueClaim]
	if SharesQueueIDs(n.Release) {
		claims := engine.Union(kept, engine.Map(unbound, func(p LSP) queueClaim { return queueClaim{Port: p.Name()} }))
		given = engine.GroupBy(engine.IndexBy(claims, func(queueClaim) struct{} { return struct{}{} }), allocateQueueIDs)
	} else {
		given = engine.Map(engine.Filter(unbound, func(p LSP) bool { return p.Port.Type == LSPTypeLocalnet }),
			func(p LSP) queueClaim { return queueClaim{Port: p.Name(), ID: 1} })
	}
	qosIDs := engine.Map(engine.Union(kept, given), func(c queueClaim) QueueID {
		return QueueID{Port: c.Port, ID: strconv.Itoa(c.ID), QoS: true}
	})
	own := engine.FlatMap(engine.AntiJoin(ports, engine.IndexBy(qosIDs, func(q QueueID) string { return q.Port })),
		func(p LSP) []QueueID {
			if id, ok := p.Port.Options["qdisc_queue_id"]; ok {
				return []QueueID{{Port: p.Name(), ID: id}}
			}
			return nil
		})
	return engine.Union(qosIDs, own)
}

// allocateQueueIDs gives the claims without an id the lowest ids that no
// claim keeps, in name order; none once every id is taken (northd logs
// "all queue ids exhausted").
func allocateQueueIDs(_ struct{}, claims []queueClaim) []queueClaim {
	used := map[int]bool{}
	var unbound []string
	for _, c := range claims {
		if c.ID > 0 {
			used[c.ID] = true
		} else {
			unbound = append(unbound, c.Port)
		}
	}
	slices.Sort(unbound)
	var out []queueClaim
	id := 1
	for _, port := range unbound {
		for used[id] {
			id++
		}
		if id > maxQueueID {
			break
		}
		used[id] = true
		out = append(out, queueClaim{Port: port, ID: id})
	}
	return out
}
