package sbwriter

import (
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
)

// isRemoteNBBound is the Port_Binding option with which 26.03 notes that
// it bound a port to a remote chassis itself.
const isRemoteNBBound = "is-remote-nb-bound"

// northdBindsRemotePorts: 26.03 binds a switch port of type "remote" to
// the remote chassis it requests, and unbinds other switch ports from
// remote chassis; 23.03 leaves the chassis column to ovn-controller.
func northdBindsRemotePorts(r schema.Release) bool { return r >= schema.OVN2603 }

// remoteBinding is the chassis 26.03 writes in the binding pb of switch
// port want, with the options:is-remote-nb-bound it notes it with
// (ovn_port_update_sbrec): a port of type "remote", or one with
// additional requested chassis, is bound to requested, its requested
// chassis, when that is remote (other_config:is-remote), and unbound once
// it is not if northd had bound it; any other port bound to a remote
// chassis is unbound. Northd writes these only when it syncs the port
// (resyncs); until then the SB's chassis and option stay. ok is false
// when the chassis column stays as it is.
func (w *Writer) remoteBinding(want *rules.PortBinding, pb *sb.PortBinding, requested string, additional bool, options map[string]string) (chassis string, ok bool) {
	if !northdBindsRemotePorts(w.stages.Release()) || want.Type == "mirror" || w.wantDP[want.Datapath].Kind == rules.Router {
		return "", false
	}
	if pb != nil && !w.resyncs(want.Name) {
		if v, kept := pb.Options[isRemoteNBBound]; kept {
			options[isRemoteNBBound] = v
		}
		return "", false
	}
	switch {
	case want.Type == relations.LSPTypeRemote || additional:
		if requested != "" && w.chassisRemote(requested) {
			options[isRemoteNBBound] = "true"
			return requested, true
		}
		if pb != nil && relations.SmapBool(pb.Options, isRemoteNBBound, false) {
			options[isRemoteNBBound] = "false"
			return "", true
		}
	case pb != nil && pb.Chassis != nil && w.chassisRemote(*pb.Chassis):
		return "", true
	}
	return "", false
}

// resyncs reports whether northd syncs port name's binding in this write:
// its NB rows changed, or northd recomputes (a Chassis row changed, a
// full reconcile).
func (w *Writer) resyncs(name string) bool { return w.resyncAllPB || w.resyncPB[name] }

// chassisRemote reports whether Chassis row u is a remote chassis.
func (w *Writer) chassisRemote(u string) bool {
	ch := w.m.chassis[u]
	return ch != nil && relations.SmapBool(ch.OtherConfig, "is-remote", false)
}

// boundByNorthd reports whether port name's binding is one whose chassis
// 26.03 may write when a chassis changes: bound to a chassis, or noted
// as bound by northd.
func (w *Writer) boundByNorthd(name string) bool {
	pb := w.m.pbs[w.m.pbByName[name]]
	if pb == nil {
		return false
	}
	_, noted := pb.Options[isRemoteNBBound]
	return pb.Chassis != nil || noted
}
