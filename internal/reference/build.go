package reference

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/northlog/northlog/relations/schema"
)

// InstallHint is what to run when the 23.03 reference is missing.
const InstallHint = "install the reference: apt-get update && apt-get install -y ovn-central"

// Build is the reference ovn-northd of one OVN release, with the OVSDB
// servers, tools and schemas that come with it: 23.03.1 is Debian's
// ovn-central installed in the system, 26.03.2 a build from source in a
// directory of its own (bin/, share/; see BuildOf).
type Build struct {
	release schema.Release
	// locate finds the build's directory, or "" for the system's packages.
	locate func() (string, error)
	// hint says how to get the build when it is missing.
	hint     string
	resolved func() (resolvedBuild, error)
	nbInfo   func() (schemaInfo, error)
}

// resolvedBuild is where a build's programs and schemas are.
type resolvedBuild struct {
	tools              map[string]string
	nbSchema, sbSchema string
	// bin is the build's program directory, first in the PATH of the
	// scenarios it runs, or "" for the system's.
	bin string
}

// toolNames are the programs the harness runs; bash runs the scenarios.
var toolNames = []string{"ovsdb-server", "ovsdb-tool", "ovsdb-client", "ovn-northd", "ovn-nbctl", "ovn-trace", "bash"}

// HomeEnv2603 names the environment variable that points at the 26.03
// build's directory. Without it, the build is looked for at
// ../shared/ovn-26.03 from the module root, where CI puts it.
const HomeEnv2603 = "OVN_REF_HOME_2603"

var builds = map[schema.Release]*Build{
	schema.OVN2303: newBuild(schema.OVN2303, func() (string, error) { return "", nil }, InstallHint),
	schema.OVN2603: newBuild(schema.OVN2603, homeOf(HomeEnv2603, "ovn-26.03"),
		"get the OVN 26.03.2 build (bin/, share/) to ../shared/ovn-26.03 from the module root, or set "+HomeEnv2603+"=DIR"),
}

// BuildOf is the reference build of release r.
func BuildOf(r schema.Release) *Build { return builds[r] }

// Builds are the reference builds of every release, oldest first.
func Builds() []*Build {
	var out []*Build
	for _, r := range schema.Releases() {
		out = append(out, builds[r])
	}
	return out
}

// system is the 23.03 build, what the package-level functions use.
var system = builds[schema.OVN2303]

func newBuild(r schema.Release, locate func() (string, error), hint string) *Build {
	b := &Build{release: r, locate: locate, hint: hint}
	b.resolved = sync.OnceValues(b.resolve)
	b.nbInfo = sync.OnceValues(b.readNBSchema)
	return b
}

// homeOf locates a build in the directory the environment variable env
// names, else in ../shared/NAME from the module root (the directory of the
// go.mod above the working directory, which go test makes the package's).
func homeOf(env, name string) func() (string, error) {
	return func() (string, error) {
		if dir := os.Getenv(env); dir != "" {
			return filepath.Abs(dir)
		}
		dir, err := os.Getwd()
		if err != nil {
			return "", err
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.Join(filepath.Dir(dir), "shared", name), nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return "", fmt.Errorf("no go.mod above the working directory and %s not set", env)
			}
			dir = parent
		}
	}
}

// Release is the release whose northd the build is.
func (b *Build) Release() schema.Release { return b.release }

// String names the build by its point release, "ovn-northd 26.03.2".
func (b *Build) String() string { return "ovn-northd " + b.release.Point() }

// resolve finds the build's programs and schemas: a build directory's bin/
// and share/; for the system's packages, the PATH first, then the sbin
// directories Debian installs ovsdb-server into, which a non-root PATH
// often lacks, and /usr/share/ovn.
func (b *Build) resolve() (resolvedBuild, error) {
	home, err := b.locate()
	if err != nil {
		return resolvedBuild{}, fmt.Errorf("reference %s unavailable (%w); %s", b, err, b.hint)
	}
	var r resolvedBuild
	share, program := "/usr/share/ovn", systemProgram
	if home != "" {
		if _, err := os.Stat(home); err != nil {
			return resolvedBuild{}, fmt.Errorf("reference %s unavailable (no build at %s); %s", b, home, b.hint)
		}
		r.bin, share = filepath.Join(home, "bin"), filepath.Join(home, "share")
		program = func(name string) (string, error) {
			candidates := []string{filepath.Join(r.bin, name)}
			if name == "bash" {
				candidates = append([]string{name}, candidates...) // looked up in the PATH
			}
			return firstProgram(candidates)
		}
	}
	var errs []error
	r.tools, errs = findPrograms(toolNames, program)
	r.nbSchema, r.sbSchema = filepath.Join(share, "ovn-nb.ovsschema"), filepath.Join(share, "ovn-sb.ovsschema")
	for _, s := range []string{r.nbSchema, r.sbSchema} {
		if _, err := os.Stat(s); err != nil {
			errs = append(errs, fmt.Errorf("schema %s missing", s))
		}
	}
	if len(errs) > 0 {
		return resolvedBuild{}, fmt.Errorf("reference %s unavailable (%w); %s", b, errors.Join(errs...), b.hint)
	}
	return r, nil
}

// systemDirs are where Debian installs daemons (ovsdb-server,
// ovs-vswitchd), which a non-root PATH often lacks.
var systemDirs = []string{"/usr/sbin", "/usr/local/sbin", "/sbin"}

// systemProgram finds an installed program: in the PATH, else in
// systemDirs.
func systemProgram(name string) (string, error) {
	candidates := []string{name}
	for _, dir := range systemDirs {
		candidates = append(candidates, filepath.Join(dir, name))
	}
	return firstProgram(candidates)
}

// firstProgram is the first of candidates that is an executable program.
func firstProgram(candidates []string) (string, error) {
	err := exec.ErrNotFound
	for _, c := range candidates {
		var p string
		if p, err = exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", err
}

// Available reports whether the build's programs and schemas are there,
// and if not, what is missing and how to get it.
func (b *Build) Available() error {
	_, err := b.resolved()
	return err
}

// Require skips the test when the build is missing, or fails it when the
// environment variable CI is "true": CI provides every reference, so a
// missing one there is a broken setup, not a reason to pass silently.
func (b *Build) Require(t testing.TB) {
	t.Helper()
	requireAvailable(t, b.Available())
}

// requireAvailable skips the test when err says that something it needs is
// missing, or fails it under CI=true.
func requireAvailable(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// tool is the path of one of toolNames in the build, or "" when the build
// is unavailable.
func (b *Build) tool(name string) string {
	r, _ := b.resolved()
	return r.tools[name]
}

// Tool is the path of the build's program name (ovn-northd, ovn-nbctl,
// ovsdb-server, ...), for a caller that starts it itself.
func (b *Build) Tool(name string) (string, error) {
	r, err := b.resolved()
	if err != nil {
		return "", err
	}
	p, ok := r.tools[name]
	if !ok {
		return "", fmt.Errorf("reference %s: no tool %s", b, name)
	}
	return p, nil
}

// schemaFile is the schema file of db, "nb" or "sb".
func (b *Build) schemaFile(db string) (string, error) {
	r, err := b.resolved()
	if err != nil {
		return "", err
	}
	switch db {
	case "nb":
		return r.nbSchema, nil
	case "sb":
		return r.sbSchema, nil
	}
	return "", fmt.Errorf("no database %q (nb or sb)", db)
}

// Available reports whether the 23.03 reference is installed (see
// Build.Available).
func Available() error { return system.Available() }

// Require is Build.Require for the 23.03 reference.
func Require(t testing.TB) {
	t.Helper()
	system.Require(t)
}

// findPrograms looks each of names up with find: name → path, and an
// error for each name not found.
func findPrograms(names []string, find func(name string) (string, error)) (map[string]string, []error) {
	paths := map[string]string{}
	var errs []error
	for _, name := range names {
		p, err := find(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s not found", name))
			continue
		}
		paths[name] = p
	}
	return paths, errs
}
