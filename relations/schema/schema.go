// Package schema holds the database schemas of the OVN releases northlog
// reproduces, and the releases themselves: a Release is known by its NB
// schema version, which is how a database says which northd it expects.
// The union of every release's schemas (Union) is the source of the
// models in relations/nb and relations/sb; each release's are what the
// embedded servers serve for it and what a database is checked against.
package schema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ovn-org/libovsdb/ovsdb"
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
	// actions are ovn_get_internal_version's last part: the number of
	// OVN actions and the internal minor version, "70.6".
	actions string
	nb, sb  []byte
}

var releases = [numReleases]releaseInfo{
	OVN2303: {"23.03", "23.03.1", "7.0.0", "20.27.0", "70.6", nb2303, sb2303},
	OVN2603: {"26.03", "26.03.2", "7.18.0", "21.8.0", "82.14", nb2603, sb2603},
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

// NBSchema and SBSchema are the release's schemas, parsed.
func (r Release) NBSchema() ovsdb.DatabaseSchema { return parsed()[r][0] }
func (r Release) SBSchema() ovsdb.DatabaseSchema { return parsed()[r][1] }

// parsed holds every release's NB and SB schema, parsed once.
var parsed = sync.OnceValue(func() [][2]ovsdb.DatabaseSchema {
	out := make([][2]ovsdb.DatabaseSchema, numReleases)
	for _, r := range Releases() {
		for i, text := range [][]byte{r.NB(), r.SB()} {
			if err := json.Unmarshal(text, &out[r][i]); err != nil {
				panic(fmt.Sprintf("embedded %s schema: %v", r, err))
			}
		}
	}
	return out
})

// InternalVersion is the options:northd_internal_version the release's
// northd writes in NB_Global and SB_Global, which ovn-controller compares
// with its own: "23.03.1-20.27.0-70.6".
func (r Release) InternalVersion() string {
	return r.Point() + "-" + r.SBVersion() + "-" + releases[r].actions
}

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

// ForServer is the release whose northd runs on a live NB server of
// schema version version: the release of that version, as ForNB, or the
// oldest release for a version older than all of theirs. An ovn-northd
// runs on an older database, without what it lacks (the IDL warns of
// each table and column); northlog does the same with the oldest release
// it has (a 22.x database, say). A version between two releases' or newer
// than the newest is refused: its database is another release's, whose
// northd writes other flows.
func ForServer(version string) (Release, error) {
	if v, ok := parseVersion(version); ok {
		if oldest, _ := parseVersion(Release(0).NBVersion()); less(v, oldest) {
			return 0, nil
		}
	}
	return ForNB(version)
}

// parseVersion reads an OVSDB schema version, "x.y.z".
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
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
