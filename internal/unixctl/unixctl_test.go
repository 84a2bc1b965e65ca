package unixctl

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// appctl runs OVS's ovs-appctl against the socket; a missing ovs-appctl
// is a failure under CI=true, elsewhere a skip.
func appctl(t *testing.T, sock string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin, err := exec.LookPath("ovs-appctl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ovs-appctl: %v (apt-get install -y openvswitch-common)", err)
		}
		t.Skipf("ovs-appctl: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"-t", sock}, args...)...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), code
}

// TestAppctl: ovs-appctl talks to the server: a command's reply (with the
// final newline OVS adds), its error, OVS's errors for unknown commands
// and argument counts, list-commands and version.
func TestAppctl(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.ctl")
	s, err := Listen(sock, "d 1.0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Register("echo", "WORD...", 1, 2, func(args []string) (string, error) { return strings.Join(args, "+"), nil })
	s.Register("fail", "", 0, 0, func([]string) (string, error) { return "", errors.New("it failed") })
	for _, tc := range []struct {
		args           []string
		stdout, stderr string
		code           int
	}{
		{[]string{"echo", "a", "b"}, "a+b\n", "", 0},
		{[]string{"fail"}, "", "it failed\novs-appctl: " + sock + ": server returned an error\n", 2},
		{[]string{"nope"}, "", `"nope" is not a valid command (use "list-commands" to see a list of valid commands)` + "\n", 2},
		{[]string{"echo"}, "", `"echo" command requires at least 1 arguments` + "\n", 2},
		{[]string{"echo", "1", "2", "3"}, "", `"echo" command takes at most 2 arguments` + "\n", 2},
		{[]string{"version"}, "d 1.0\n", "", 0},
	} {
		out, errs, code := appctl(t, sock, tc.args...)
		if out != tc.stdout || !strings.HasPrefix(errs, tc.stderr) || code != tc.code {
			t.Errorf("%v: stdout %q stderr %q exit %d; want %q, %q..., %d", tc.args, out, errs, code, tc.stdout, tc.stderr, tc.code)
		}
	}
	out, _, _ := appctl(t, sock, "list-commands")
	if !strings.HasPrefix(out, "The available commands are:\n") || !strings.Contains(out, "  echo                    WORD...\n") {
		t.Errorf("list-commands:\n%s", out)
	}
	s.Close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left after Close: %v", err)
	}
}
