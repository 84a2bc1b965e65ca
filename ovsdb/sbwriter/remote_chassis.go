package sbwriter

import (
	"github.com/northlog/northlog/relations"
)

// FeedRemoteChassis feeds n, after the Chassis rows changed, the changes
// of the names under which a remote chassis is found
// (relations.RemoteChassisNames), and returns how many there were.
func (w *Writer) FeedRemoteChassis(n *relations.NB) int {
	if !w.chassisChanged {
		return 0
	}
	var chassis []relations.Chassis
	for u, ch := range w.m.chassis {
		chassis = append(chassis, relations.Chassis{UUID: u, Name: ch.Name, Hostname: ch.Hostname,
			Remote: relations.SmapBool(ch.OtherConfig, "is-remote", false)})
	}
	fed := w.house.remoteChassis
	want := map[string]bool{}
	changed := 0
	for _, name := range relations.RemoteChassisNames(chassis) {
		want[name] = true
		if !fed[name] {
			n.SetRemoteChassisName(name, true)
			changed++
		}
	}
	for _, name := range sortedKeys(fed) {
		if !want[name] {
			n.SetRemoteChassisName(name, false)
			changed++
		}
	}
	w.house.remoteChassis = want
	return changed
}

// RemoteChassisFed are the remote chassis names fed so far, sorted, for
// a program built afresh.
func (w *Writer) RemoteChassisFed() []string { return sortedKeys(w.house.remoteChassis) }
