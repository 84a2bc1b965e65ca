// Package schema holds the database schemas of the OVN releases northlog
// reproduces, and the releases themselves: a Release is known by its NB
// schema version, which is how a database says which northd it expects.
// The 23.03.1 schemas (as the ovn-central package installs them in
// /usr/share/ovn) are the source of the models in relations/nb and
// relations/sb; each release's are what the embedded servers serve for it
// and what a database is checked against.
package schema

import (
	_ "embed"
	"fmt"
	"strings"
)

// Release is an OVN release whose ovn-northd northlog reproduces.
type Release uint8

// The releases, oldest first. Adding one: its schemas under a directory
// named after it, a releases entry, its stage table (rules/stages.go).
const (
	OVN2303 Release = iota // 23.03.1, Debian bookworm's ovn-central
	OVN2603                // 26.03.2, OVN's long-term line

	numReleases
)

// Newest is the most recent release.
const Newest = numReleases - 1

var (
	//go:embed 23.03/ovn-nb.ovsschema
	nb2303 []byte
	//go:embed 23.03/ovn-sb.ovsschema
	sb2303 []byte
	//go:embed 26.03/ovn-nb.ovsschema
	nb2603 []byte
	//go:embed 26.03/ovn-sb.ovsschema
	sb2603 []byte
)

type releaseInfo struct {
	name, point          string // "23.03", "23.03.1"
	nbVersion, sbVersion string
	nb, sb               []byte
}

var releases = [numReleases]releaseInfo{
	OVN2303: {"23.03", "23.03.1", "7.0.0", "20.27.0", nb2303, sb2303},
	OVN2603: {"26.03", "26.03.2", "7.18.0", "21.8.0", nb2603, sb2603},
}

// Releases lists every release, oldest first.
func Releases() []Release {
	out := make([]Release, numReleases)
	for i := range out {
		out[i] = Release(i)
	}
	return out
}

// String is the release line, "23.03".
func (r Release) String() string {
	if r >= numReleases {
		return fmt.Sprintf("Release(%d)", uint8(r))
	}
	return releases[r].name
}

// Point is the point release reproduced, "23.03.1".
func (r Release) Point() string { return releases[r].point }

// NB is the release's ovn-nb.ovsschema.
func (r Release) NB() []byte { return releases[r].nb }

// SB is the release's ovn-sb.ovsschema.
func (r Release) SB() []byte { return releases[r].sb }

// NBVersion is the OVN_Northbound schema version of the release.
func (r Release) NBVersion() string { return releases[r].nbVersion }

// SBVersion is the OVN_Southbound schema version of the release.
func (r Release) SBVersion() string { return releases[r].sbVersion }

// supported names the releases and their NB schema versions, for errors.
func supported() string {
	var s []string
	for _, r := range Releases() {
		s = append(s, fmt.Sprintf("%s (NB schema %s)", r.Point(), r.NBVersion()))
	}
	return strings.Join(s, ", ")
}

// ForNB is the release whose northd an NB database of schema version
// version is for. Any other version is refused: a schema between two
// releases has columns one lacks and the other reads differently.
func ForNB(version string) (Release, error) {
	for _, r := range Releases() {
		if r.NBVersion() == version {
			return r, nil
		}
	}
	return 0, fmt.Errorf("NB schema version %s is not one northlog reproduces; supported: %s "+
		"(convert the database with `ovsdb-tool convert DB ovn-nb.ovsschema` of one of them)", version, supported())
}

// Parse reads a release as a command line names it: "23.03" or "26.03"
// (a point release, "23.03.1", is accepted too).
func Parse(name string) (Release, error) {
	for _, r := range Releases() {
		if name == r.String() || name == r.Point() {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown OVN release %q; supported: %s", name, supported())
}
