package reference

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// InstallHint is what to run when the reference is missing.
const InstallHint = "install the reference: apt-get update && apt-get install -y ovn-central"

// Home is $OVN_REF_HOME, another OVN build used as the reference as
// ovn-ref uses it: its programs (HOME/bin) before the PATH's, its schemas
// (HOME/share); "" for the installed ovn-central.
var Home = os.Getenv("OVN_REF_HOME")

// Schema files of the reference, used to create fresh databases.
var (
	nbSchema = filepath.Join(schemaDir(), "ovn-nb.ovsschema")
	sbSchema = filepath.Join(schemaDir(), "ovn-sb.ovsschema")
)

func schemaDir() string {
	if Home != "" {
		return filepath.Join(Home, "share")
	}
	return "/usr/share/ovn"
}

// toolNames are the programs the harness runs; bash runs the scenarios.
var toolNames = []string{"ovsdb-server", "ovsdb-tool", "ovsdb-client", "ovn-northd", "ovn-nbctl", "ovn-trace", "bash"}

// tools resolves toolNames once: Home's bin, the PATH, then the sbin
// directories Debian installs ovsdb-server into, which a non-root PATH
// often lacks.
var tools = sync.OnceValues(func() (map[string]string, error) {
	paths := map[string]string{}
	var errs []error
	for _, name := range toolNames {
		p, err := exec.LookPath(filepath.Join(Home, "bin", name))
		if Home == "" || err != nil {
			p, err = exec.LookPath(name)
		}
		for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/sbin"} {
			if err == nil {
				break
			}
			p, err = exec.LookPath(filepath.Join(dir, name))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s not found", name))
			continue
		}
		paths[name] = p
	}
	for _, s := range []string{nbSchema, sbSchema} {
		if _, err := os.Stat(s); err != nil {
			errs = append(errs, fmt.Errorf("schema %s missing", s))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("reference ovn-northd 23.03 unavailable (%w); %s", errors.Join(errs...), InstallHint)
	}
	return paths, nil
})

// Available reports whether the reference programs and schemas are
// installed, and if not, what is missing and how to install it.
func Available() error {
	_, err := tools()
	return err
}

// Require skips the test when the reference is not installed, or fails it
// when the environment variable CI is "true": CI installs the reference, so
// its absence there is a broken setup, not a reason to pass silently.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// tool is the resolved path of one of toolNames; Available must have
// succeeded.
func tool(name string) string {
	paths, _ := tools()
	return paths[name]
}
