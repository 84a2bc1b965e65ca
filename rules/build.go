package rules

// on names the datapath a rule writes flows for, so a rule reads as a list
// of (stage, priority, match, actions).
type on string

// flow is one logical flow on datapath dp.
func (dp on) flow(stage Stage, priority int, match, actions string) Flow {
	return Flow{Datapath: string(dp), Stage: stage, Priority: priority, Match: match, Actions: actions}
}

// onPort names a switch port that a rule writes flows about, as their
// InOutPort, on the port's switch.
type onPort struct{ Switch, Port string }

// flow is one logical flow about port p.
func (p onPort) flow(stage Stage, priority int, match, actions string) Flow {
	f := on(p.Switch).flow(stage, priority, match, actions)
	f.InOutPort = p.Port
	return f
}

// drop is northd's debug_drop_action() with no debug drop sampling configured.
const drop = "drop;"
