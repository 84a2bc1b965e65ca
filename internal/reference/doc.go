// Package reference runs a reference ovn-northd for differential tests: a
// private NB and SB ovsdb-server pair on unix sockets with a real
// ovn-northd between them (the Go version of the project's ovn-ref script),
// the canonical dump of its logical flows and of its other SB rows
// (DumpSB, then SBDump.Flows and SBDump.Rows; DumpFlows and DumpRows in one
// call), a comparison report, a random topology generator, ovn-trace
// runs against any SB with the output normalised for comparison (Trace),
// and simulated chassis for packet tests: the real ovn-controller and
// ovs-vswitchd on the dummy datapath (Hypervisor), whose ports' pcap files
// Capture reads.
//
// Each release northlog reproduces has its reference Build (BuildOf):
// 23.03.1 is Debian's ovn-central installed in the system, 26.03.2 a build
// from source found at ../shared/ovn-26.03 from the module root, or where
// the environment variable OVN_REF_HOME_2603 says. A Build's Start, Launch,
// DumpSB and Trace use its own servers, tools and schemas, and a Dir with
// that Build puts its bin/ first in the PATH of the scenarios it runs. The
// package-level Start, Launch, Require, DumpSB and Trace are 23.03's.
//
// A differential test, for each scenario under rules/testdata/scenarios:
//
//	func TestDifferential(t *testing.T) {
//		ref := reference.Start(t) // skips (fails under CI=true) without ovn-central
//		scenarios, err := reference.LoadScenarios("testdata/scenarios")
//		if err != nil {
//			t.Fatal(err)
//		}
//		for _, sc := range scenarios {
//			t.Run(sc.Name, func(t *testing.T) {
//				want, err := ref.Run(t.Context(), sc.Script) // reset, apply, sync, dump
//				if err != nil {
//					t.Fatal(err)
//				}
//				got := northlogFlows(t, ref.NBFile()) // northlog offline on the same NB file
//				if r := reference.Compare(want, got); !r.Equal() {
//					t.Errorf("%s: northlog differs from ovn-northd:\n%s", sc.Description, r)
//				}
//			})
//		}
//	}
//
// One Instance serves a sequence of scenarios: Run resets the NB between
// them, about 20 ms against 70-100 ms to start fresh servers, which makes a
// small scenario about twice as cheap (go test -bench Scenario).
// Subtests that call t.Parallel each need their own Start. A test in package
// rules that uses this package must be an external test (package
// rules_test), since this package imports rules for the stage names.
package reference
