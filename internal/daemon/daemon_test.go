package daemon

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary be the process that holds a pidfile.
func TestMain(m *testing.M) {
	if p := os.Getenv("DAEMON_TEST_PIDFILE"); p != "" {
		if _, err := CreatePidfile(p, false); err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString("ready\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestPidfileLock: another process sees the pidfile locked by the pid it
// names, a second daemon refuses to start on it unless told to overwrite,
// and once the holder is gone the lock says so.
func TestPidfileLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.pid")
	holder := exec.Command(os.Args[0])
	holder.Env = append(os.Environ(), "DAEMON_TEST_PIDFILE="+path)
	in, _ := holder.StdinPipe()
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("holder: %q", line)
	}
	if pid, err := LockedBy(path); err != nil || pid != holder.Process.Pid {
		t.Errorf("LockedBy: %d, %v; want %d", pid, err, holder.Process.Pid)
	}
	if _, err := CreatePidfile(path, false); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second daemon: %v", err)
	}
	in.Close()
	holder.Wait()
	if _, err := LockedBy(path); err == nil || !strings.Contains(err.Error(), "is not running") {
		t.Errorf("after the holder ended: %v", err)
	}
	p, err := CreatePidfile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	p.Remove()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("pidfile left: %v", err)
	}
}
