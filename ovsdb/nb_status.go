package ovsdb

import (
	"maps"
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/sbwriter"
	"github.com/northlog/northlog/relations/nb"
)

// statusDirt follows what the NB status columns northd writes derive from,
// so that an iteration checks the rows whose inputs changed, not every
// row: the status of BFD rows (bfdStatusOps) from the NB row, whether a
// route uses it and the SB row of its session; the status of switch port
// health checks (portHealthStatusOps) from the port's health_checks, the
// check's row and the SB Service_Monitor of the port.
type statusDirt struct {
	// bfds are the NB BFD rows to check; bySession the NB BFD rows by
	// session, for a change of an SB row; used the rows a route uses
	// (the program's UsedBFDs).
	bfds      map[string]bool
	bySession map[sbwriter.BFDSession]map[string]bool
	used      map[string]bool
	// ports are the switch ports whose health checks to check;
	// portsByCheck the ports that list a health check row.
	ports        map[string]bool
	portsByCheck map[string]map[string]bool
}

func newStatusDirt() *statusDirt {
	return &statusDirt{bfds: map[string]bool{}, bySession: map[sbwriter.BFDSession]map[string]bool{}, used: map[string]bool{},
		ports: map[string]bool{}, portsByCheck: map[string]map[string]bool{}}
}

// nbRow notes an NB row of table that changed from old to new (either nil).
func (s *statusDirt) nbRow(table, uuid string, old, new any) {
	switch table {
	case nb.BFDTable:
		s.bfds[uuid] = true
		if b, ok := old.(*nb.BFD); ok {
			setindex.Put(s.bySession, sbwriter.BFDSession{Port: b.LogicalPort, DstIP: b.DstIP}, uuid, false)
		}
		if b, ok := new.(*nb.BFD); ok {
			setindex.Put(s.bySession, sbwriter.BFDSession{Port: b.LogicalPort, DstIP: b.DstIP}, uuid, true)
		}
	case nb.LogicalSwitchPortTable:
		for _, row := range []any{old, new} {
			if lsp, ok := row.(*nb.LogicalSwitchPort); ok && len(lsp.HealthChecks) > 0 {
				s.ports[lsp.Name] = true
			}
		}
		if lsp, ok := old.(*nb.LogicalSwitchPort); ok {
			for _, hc := range lsp.HealthChecks {
				setindex.Put(s.portsByCheck, hc, lsp.Name, false)
			}
		}
		if lsp, ok := new.(*nb.LogicalSwitchPort); ok {
			for _, hc := range lsp.HealthChecks {
				setindex.Put(s.portsByCheck, hc, lsp.Name, true)
			}
		}
	case nb.LogicalSwitchPortHealthCheckTable:
		for name := range s.portsByCheck[uuid] {
			s.ports[name] = true
		}
	}
}

// sbRows notes the SB rows that changed (sbwriter.Writer.TakeStatusChanged).
func (s *statusDirt) sbRows(bfds map[sbwriter.BFDSession]bool, monitorPorts map[string]bool, all bool) {
	for session := range bfds {
		maps.Copy(s.bfds, s.bySession[session])
	}
	maps.Copy(s.ports, monitorPorts)
	if all {
		s.markAll()
	}
}

// usedBFDs notes a step's change of the BFD rows routes use.
func (s *statusDirt) usedBFDs(delta []engine.Change[string]) {
	for _, c := range delta {
		s.bfds[c.Tuple] = true
		if c.Weight > 0 {
			s.used[c.Tuple] = true
		} else {
			delete(s.used, c.Tuple)
		}
	}
}

// markAll marks every BFD row and health checked port, for a write that
// failed or a new connection.
func (s *statusDirt) markAll() {
	for _, rows := range s.bySession {
		maps.Copy(s.bfds, rows)
	}
	for _, names := range s.portsByCheck {
		maps.Copy(s.ports, names)
	}
}

// takeBFDs and takePorts return the BFD rows and the ports to check,
// sorted, and forget them.
func (s *statusDirt) takeBFDs() []string {
	bfds := slices.Sorted(maps.Keys(s.bfds))
	if len(bfds) > 0 {
		s.bfds = map[string]bool{}
	}
	return bfds
}

func (s *statusDirt) takePorts() []string {
	ports := slices.Sorted(maps.Keys(s.ports))
	if len(ports) > 0 {
		s.ports = map[string]bool{}
	}
	return ports
}
