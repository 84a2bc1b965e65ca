package reference

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// samplingGen draws ACL sampling (TopologyOptions.ACLSampling) from a
// random stream of its own, so that the rest of a topology is the one
// drawn without sampling.
type samplingGen struct {
	rng *rand.Rand
	// lastCollector and lastMetadata are the Sample_Collector id and the
	// Sample metadata handed out so far (both are unique in the NB).
	lastCollector, lastMetadata int
	// collectors are the named collectors (@scN) of the ovn-nbctl
	// invocation being built.
	collectors []string
}

func (s *samplingGen) chance(n int) bool { return s.rng.IntN(n) == 0 }

// addSamplingApps adds the Sampling_App rows: acl-new and acl-est three
// times in four each, drop (with debug drop sampling on) one time in four.
func (g *topologyGen) addSamplingApps() {
	s := g.sampling
	if s == nil {
		return
	}
	for _, app := range []struct {
		name   string
		chance bool
	}{{"acl-new", !s.chance(4)}, {"acl-est", !s.chance(4)}, {"drop", s.chance(4)}} {
		if app.chance {
			g.add("create", "Sampling_App", "type="+app.name, fmt.Sprintf("id=%d", 1+s.rng.IntN(254)))
		}
	}
	if s.chance(6) {
		g.add("set", "NB_Global", ".", fmt.Sprintf("options:debug_drop_collector_set=%d", 1+s.rng.IntN(10)))
	}
}

// addSamples draws an ACL's samples and returns its columns that name
// them: one ACL in two samples new connections, one in three established
// ones. A sample has none, one or several of the collectors of the
// invocation, which are made (one to three, with one of a few
// probabilities and collector sets) when its first sample needs them, so
// that the ACLs of a switch or port group share collectors.
func (g *topologyGen) addSamples() []string {
	s := g.sampling
	if s == nil {
		return nil
	}
	var cols []string
	for _, column := range []struct {
		name   string
		chance int
	}{{"sample_new", 2}, {"sample_est", 3}} {
		if !s.chance(column.chance) || s.lastCollector+3 > 255 {
			continue
		}
		if s.collectors == nil {
			for range 1 + s.rng.IntN(3) {
				s.lastCollector++
				id := fmt.Sprintf("@sc%d", s.lastCollector)
				s.collectors = append(s.collectors, id)
				g.add("--id="+id, "create", "Sample_Collector", fmt.Sprintf("id=%d", s.lastCollector),
					fmt.Sprintf("name=c%d", s.lastCollector),
					fmt.Sprintf("probability=%d", []int{65535, 65535, 1000, 0}[s.rng.IntN(4)]),
					fmt.Sprintf("set_id=%d", 1+s.rng.IntN(3)))
			}
		}
		s.lastMetadata++
		sample := fmt.Sprintf("@sample%d", s.lastMetadata)
		create := []string{"--id=" + sample, "create", "Sample", fmt.Sprintf("metadata=%d", s.lastMetadata)}
		var chosen []string
		switch {
		case s.chance(8): // none
		case s.chance(2):
			chosen = []string{s.collectors[s.rng.IntN(len(s.collectors))]}
		default:
			for _, c := range s.collectors {
				if s.chance(2) {
					chosen = append(chosen, c)
				}
			}
		}
		if len(chosen) > 0 {
			create = append(create, "collectors="+strings.Join(chosen, ","))
		}
		g.add(create...)
		cols = append(cols, column.name+"="+sample)
	}
	return cols
}
