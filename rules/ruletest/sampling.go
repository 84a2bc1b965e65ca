package ruletest

import (
	"maps"
	"slices"

	"github.com/northlog/northlog/relations/nb"
	"pgregory.net/rapid"
)

// samplingChanges are ACL sampling's rows (26.03): collectors and their
// settings, samples with their collectors and metadata, ACLs that take or
// drop a sample for new or established traffic, the sampling
// applications' ids, and debug drop sampling.
var samplingChanges = map[string]Change{
	"setCollector":   setCollector,
	"delCollector":   DeleteListed(nb.SampleCollectorTable, nb.SampleTable, func(s *nb.Sample) *[]string { return &s.Collectors }),
	"setSample":      setSample,
	"setACLSample":   setACLSample,
	"setSamplingApp": setSamplingApp,
	"setDebugDrop":   setDebugDrop,
}

// setCollector adds a Sample_Collector or rewrites one, with a few ids,
// probabilities and collector sets.
func setCollector(t *rapid.T, s *State) {
	id := s.PickOrNew(t, nb.SampleCollectorTable, "collector")
	s.Set(t, nb.SampleCollectorTable, id, &nb.SampleCollector{
		UUID:        id,
		ID:          rapid.IntRange(1, 3).Draw(t, "collectorID"),
		Probability: rapid.SampledFrom([]int{0, 1000, 65535}).Draw(t, "probability"),
		SetID:       rapid.IntRange(1, 2).Draw(t, "setID"),
	})
}

// setSample adds a Sample or rewrites one: its metadata and a subset of
// the collectors.
func setSample(t *rapid.T, s *State) {
	id := s.PickOrNew(t, nb.SampleTable, "sample")
	var collectors []string
	for _, c := range s.IDs(nb.SampleCollectorTable) {
		if rapid.Bool().Draw(t, "collected") {
			collectors = append(collectors, c)
		}
	}
	slices.Sort(collectors)
	s.Set(t, nb.SampleTable, id, &nb.Sample{
		UUID:       id,
		Metadata:   rapid.IntRange(1, 3).Draw(t, "metadata"),
		Collectors: collectors,
	})
}

// setACLSample sets or clears an ACL's sample_new or sample_est.
func setACLSample(t *rapid.T, s *State) {
	acl := s.Pick(t, nb.ACLTable, "acl")
	if acl == "" {
		return
	}
	var sample *string
	if id := s.Pick(t, nb.SampleTable, "sample"); id != "" && rapid.Bool().Draw(t, "set") {
		sample = &id
	}
	est := rapid.Bool().Draw(t, "est")
	Edit(t, s, nb.ACLTable, acl, func(a *nb.ACL) {
		if est {
			a.SampleEst = sample
		} else {
			a.SampleNew = sample
		}
	})
}

// setSamplingApp adds, rewrites or deletes the Sampling_App of one type.
func setSamplingApp(t *rapid.T, s *State) {
	typ := rapid.SampledFrom([]string{nb.SamplingAppTypeDrop, nb.SamplingAppTypeACLNew, nb.SamplingAppTypeACLEst}).Draw(t, "type")
	id := ""
	for _, u := range s.IDs(nb.SamplingAppTable) {
		if s.rows[nb.SamplingAppTable][u].(*nb.SamplingApp).Type == typ {
			id = u
		}
	}
	if id != "" && rapid.Bool().Draw(t, "delete") {
		s.Set(t, nb.SamplingAppTable, id, nil)
		return
	}
	if id == "" {
		id = s.UUID()
	}
	s.Set(t, nb.SamplingAppTable, id, &nb.SamplingApp{UUID: id, Type: typ, ID: rapid.IntRange(1, 2).Draw(t, "appID")})
}

// setDebugDrop turns debug drop sampling (NB_Global
// debug_drop_collector_set, debug_drop_domain_id) on or off, keeping the
// row's other options.
func setDebugDrop(t *rapid.T, s *State) {
	editGlobalOptions(t, s, func(options map[string]string) {
		options["debug_drop_collector_set"] = rapid.SampledFrom([]string{"0", "5"}).Draw(t, "collectorSet")
		options["debug_drop_domain_id"] = rapid.SampledFrom([]string{"1", "300"}).Draw(t, "domain")
	})
}

// ownOptions is a copy of options to edit: a new map for none
// (maps.Clone(nil) is nil).
func ownOptions(options map[string]string) map[string]string {
	if options == nil {
		return map[string]string{}
	}
	return maps.Clone(options)
}

// editGlobalOptions sets the NB_Global row (made if there is none) with
// its options as edit leaves a copy of them, its other columns kept.
func editGlobalOptions(t *rapid.T, s *State, edit func(options map[string]string)) {
	g := &nb.NBGlobal{UUID: globalUUID}
	if row, ok := s.rows[nb.NBGlobalTable][globalUUID].(*nb.NBGlobal); ok {
		c := *row
		g = &c
	}
	g.Options = ownOptions(g.Options)
	edit(g.Options)
	s.Set(t, nb.NBGlobalTable, globalUUID, g)
}
