package relations

import (
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
)

// Collector is a Sample_Collector as a value: its id (1..255), the
// probability of a packet being sampled (out of 65535) and the IPFIX
// collector set it samples to.
type Collector struct {
	UUID        string
	ID          int
	Probability int
	SetID       int
}

// Sample is an NB Sample with its collectors in _uuid order, as northd's
// IDL holds the set. The zero Sample is no sample.
type Sample struct {
	UUID       string
	Metadata   int // the observation point
	Collectors engine.Sorted[Collector]
}

// Set reports whether s is a sample rather than none.
func (s Sample) Set() bool { return s.UUID != "" }

// OnlyCollector is the sample's collector when it has exactly one
// (northd.c acl_use_generic_sample_flows), and whether it has.
func (s Sample) OnlyCollector() (Collector, bool) {
	if s.Collectors.Len() != 1 {
		return Collector{}, false
	}
	return s.Collectors.At(0), true
}

// ACLSampling is an ACL's samples: of the packets that create a
// connection (sample_new) and of those of established connections
// (sample_est). Only ACLs with a sample have one.
type ACLSampling struct {
	ACL      string // NB _uuid
	New, Est Sample
}

// SamplingApps are the observation domains of the sampling applications
// (NB Sampling_App, en-sampling-app.c): drop (debug drop sampling),
// acl-new and acl-est; 0 where no row names the application.
type SamplingApps struct {
	Drop, ACLNew, ACLEst int
}

// sampleMember is a sample with one of its collectors, or with none
// (HasCollector false) to say that the sample exists.
type sampleMember struct {
	Sample       *nb.Sample
	Collector    Collector
	HasCollector bool
}

// deriveSamples joins each Sample with its collectors.
func deriveSamples(n *NB) engine.Rel[Sample] {
	listed := engine.FlatMap(n.Samples.Rows, func(s *nb.Sample) []sampleMember {
		out := make([]sampleMember, len(s.Collectors))
		for i, c := range s.Collectors {
			out[i] = sampleMember{Sample: s, Collector: Collector{UUID: c}}
		}
		return out
	})
	members := engine.Join(
		engine.IndexBy(listed, func(m sampleMember) string { return m.Collector.UUID }),
		n.SampleCollectors.ByUUID(),
		func(_ string, m sampleMember, c *nb.SampleCollector) sampleMember {
			m.Collector = Collector{UUID: c.UUID, ID: c.ID, Probability: c.Probability, SetID: c.SetID}
			m.HasCollector = true
			return m
		})
	exists := engine.Map(n.Samples.Rows, func(s *nb.Sample) sampleMember { return sampleMember{Sample: s} })
	return engine.GroupBy(
		engine.IndexBy(engine.Union(exists, members), func(m sampleMember) string { return m.Sample.UUID }),
		func(_ string, ms []sampleMember) []Sample {
			var row *nb.Sample
			var collectors []Collector
			for _, m := range ms {
				if m.HasCollector {
					collectors = append(collectors, m.Collector)
				} else {
					row = m.Sample
				}
			}
			if row == nil {
				return nil
			}
			return []Sample{{
				UUID:     row.UUID,
				Metadata: row.Metadata,
				Collectors: engine.SortedOf(collectors, func(a, b Collector) int {
					return strings.Compare(a.UUID, b.UUID)
				}),
			}}
		})
}

// aclSample says that ACL samples with Sample, for established
// connections (Est) or new ones.
type aclSample struct {
	ACL    string
	Est    bool
	Sample Sample
}

// deriveACLSamplings gives each ACL with a sample_new or sample_est its
// samples.
func deriveACLSamplings(n *NB) engine.Rel[ACLSampling] {
	refs := engine.FlatMap(n.ACLs.Rows, func(a *nb.ACL) []aclSample {
		var out []aclSample
		if a.SampleNew != nil {
			out = append(out, aclSample{ACL: a.UUID, Sample: Sample{UUID: *a.SampleNew}})
		}
		if a.SampleEst != nil {
			out = append(out, aclSample{ACL: a.UUID, Est: true, Sample: Sample{UUID: *a.SampleEst}})
		}
		return out
	})
	resolved := engine.Join(
		engine.IndexBy(refs, func(r aclSample) string { return r.Sample.UUID }),
		engine.IndexBy(deriveSamples(n), func(s Sample) string { return s.UUID }),
		func(_ string, r aclSample, s Sample) aclSample {
			r.Sample = s
			return r
		})
	return engine.GroupBy(
		engine.IndexBy(resolved, func(r aclSample) string { return r.ACL }),
		func(acl string, rs []aclSample) []ACLSampling {
			s := ACLSampling{ACL: acl}
			for _, r := range rs {
				if r.Est {
					s.Est = r.Sample
				} else {
					s.New = r.Sample
				}
			}
			return []ACLSampling{s}
		})
}

// deriveSamplingApps reads the Sampling_App rows into one tuple; none
// without rows.
func deriveSamplingApps(n *NB) engine.Rel[SamplingApps] {
	return engine.GroupBy(
		engine.IndexBy(n.SamplingAppRows.Rows, func(*nb.SamplingApp) struct{} { return struct{}{} }),
		func(_ struct{}, rows []*nb.SamplingApp) []SamplingApps {
			var apps SamplingApps
			for _, a := range rows {
				switch a.Type {
				case nb.SamplingAppTypeDrop:
					apps.Drop = a.ID
				case nb.SamplingAppTypeACLNew:
					apps.ACLNew = a.ID
				case nb.SamplingAppTypeACLEst:
					apps.ACLEst = a.ID
				}
			}
			return []SamplingApps{apps}
		})
}
