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

// Schema files of the installed reference, used to create fresh databases.
const (
	nbSchema = "/usr/share/ovn/ovn-nb.ovsschema"
	sbSchema = "/usr/share/ovn/ovn-sb.ovsschema"
)

// toolNames are the programs the harness runs; bash runs the scenarios.
var toolNames = []string{"ovsdb-server", "ovsdb-tool", "ovsdb-client", "ovn-northd", "ovn-nbctl", "ovn-trace", "bash"}

// tools resolves toolNames once: the PATH first, then the sbin directories
// Debian installs ovsdb-server into, which a non-root PATH often lacks.
var tools = sync.OnceValues(func() (map[string]string, error) {
	paths := map[string]string{}
	var errs []error
	for _, name := range toolNames {
		p, err := exec.LookPath(name)
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
