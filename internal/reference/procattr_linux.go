package reference

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes a daemon receive SIGTERM when the test process dies
// without running its cleanups (a test timeout, a crash), so no server
// outlives the test that started it.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
