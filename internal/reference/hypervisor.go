package reference

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// HypervisorHint is what to run when the programs of a Hypervisor are
// missing.
const HypervisorHint = "install ovn-controller and ovs-vswitchd: apt-get update && apt-get install -y ovn-host openvswitch-switch"

// hypervisorTools are the programs a Hypervisor runs: Debian's ovn-host
// 23.03 and openvswitch-switch.
var hypervisorTools = []string{"ovsdb-tool", "ovsdb-server", "ovs-vsctl", "ovs-appctl", "ovs-ofctl", "ovs-vswitchd", "ovn-controller"}

// vswitchSchema is the Open_vSwitch database schema of openvswitch-common.
const vswitchSchema = "/usr/share/openvswitch/vswitch.ovsschema"

// hypervisorPrograms finds hypervisorTools once: name → path.
var hypervisorPrograms = sync.OnceValues(func() (map[string]string, error) {
	tools, errs := findPrograms(hypervisorTools, systemProgram)
	if _, err := os.Stat(vswitchSchema); err != nil {
		errs = append(errs, fmt.Errorf("schema %s missing", vswitchSchema))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("hypervisor unavailable (%w); %s", errors.Join(errs...), HypervisorHint)
	}
	return tools, nil
})

// HypervisorAvailable reports whether ovn-controller and ovs-vswitchd are
// installed, and if not, what is missing and how to get it.
func HypervisorAvailable() error {
	_, err := hypervisorPrograms()
	return err
}

// RequireHypervisor skips the test when ovn-controller or ovs-vswitchd is
// missing, or fails it under CI=true, as Build.Require does.
func RequireHypervisor(t testing.TB) {
	t.Helper()
	requireAvailable(t, HypervisorAvailable())
}

// Hypervisor is a simulated OVN chassis, made as OVN's own tests make one
// (ovs-sim's sim_add, then ovn_attach): in a directory of its own, an
// Open_vSwitch database served by ovsdb-server, ovs-vswitchd on the dummy
// datapath (--enable-dummy=system: every port a netdev-dummy, which takes
// packets from ovs-appctl netdev-dummy/receive and writes what it sends to
// its options:tx_pcap file), the integration bridge br-int, the underlay
// bridge br-phys holding the chassis' encapsulation IP, and ovn-controller
// 23.03 on a Southbound database.
type Hypervisor struct {
	// Name is the chassis name (system-id) and hostname.
	Name string
	// Path is the directory: conf.db served on db.sock, the daemons' logs
	// NAME.log, ovs-vswitchd's control socket ovs-vswitchd.ctl, the ports'
	// pcap files PORT-tx.pcap and PORT-rx.pcap.
	Path    string
	tools   map[string]string
	daemons []*Daemon
}

// StartHypervisor starts the chassis name in dir (made if missing) on the
// Southbound database sbRemote, with encapIP (a /24) on br-phys as its
// Geneve endpoint, and returns once ovn-controller runs. The caller stops
// it with Close; ctx bounds the start only.
func StartHypervisor(ctx context.Context, dir, name, sbRemote, encapIP string) (*Hypervisor, error) {
	tools, err := hypervisorPrograms()
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if sock := filepath.Join(dir, "ovs-vswitchd.ctl"); len(sock) > 107 {
		return nil, fmt.Errorf("hypervisor: directory path too long for a unix socket: %s", sock)
	}
	h := &Hypervisor{Name: name, Path: dir, tools: tools}
	if err := h.start(ctx, sbRemote, encapIP); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

func (h *Hypervisor) start(ctx context.Context, sbRemote, encapIP string) error {
	db := h.path("conf.db")
	if out, err := h.command(ctx, "ovsdb-tool", "create", db, vswitchSchema).CombinedOutput(); err != nil {
		return fmt.Errorf("ovsdb-tool create %s: %w: %s", db, err, out)
	}
	if err := h.startListening(ctx, "db.sock", "ovsdb-server", "--remote=punix:"+h.path("db.sock"), db); err != nil {
		return err
	}
	if _, err := h.Vsctl(ctx, "--no-wait", "init"); err != nil {
		return err
	}
	if err := h.startListening(ctx, "ovs-vswitchd.ctl", "ovs-vswitchd", "--enable-dummy=system", "--unixctl="+h.path("ovs-vswitchd.ctl"), h.dbRemote()); err != nil {
		return err
	}
	// ovn_attach: the underlay bridge with the encapsulation IP and its
	// route, then the chassis' Open_vSwitch settings and br-int.
	if _, err := h.Vsctl(ctx, "add-br", "br-phys"); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"netdev-dummy/ip4addr", "br-phys", encapIP + "/24"},
		{"ovs/route/add", encapIP + "/24", "br-phys"},
	} {
		if _, err := h.Appctl(ctx, args...); err != nil {
			return err
		}
	}
	if _, err := h.Vsctl(ctx,
		"--", "set", "Open_vSwitch", ".", "external-ids:hostname="+h.Name, "external-ids:system-id="+h.Name,
		"external-ids:ovn-remote="+sbRemote, "external-ids:ovn-encap-type=geneve", "external-ids:ovn-encap-ip="+encapIP,
		"--", "--may-exist", "add-br", "br-int",
		"--", "set", "bridge", "br-int", "fail-mode=secure", "other-config:disable-in-band=true"); err != nil {
		return err
	}
	// ovn-controller 23.03 has no --unixctl: its control socket is
	// OVN_RUNDIR/ovn-controller.PID.ctl.
	_, err := h.startDaemon("ovn-controller", "--pidfile="+h.path("ovn-controller.pid"), h.dbRemote())
	return err
}

// startListening starts program (startDaemon) and waits until it listens
// on socket, a file of the hypervisor's directory.
func (h *Hypervisor) startListening(ctx context.Context, socket, program string, args ...string) error {
	d, err := h.startDaemon(program, args...)
	if err != nil {
		return err
	}
	return d.WaitListening(ctx, h.path(socket))
}

// startDaemon starts one of the hypervisor's programs in the foreground,
// logging to DIR/PROGRAM.log only.
func (h *Hypervisor) startDaemon(program string, args ...string) (*Daemon, error) {
	log := h.path(program + ".log")
	d, err := StartDaemon(DaemonSpec{
		Name: program + " (" + h.Path + ")",
		Argv: append([]string{h.tools[program], "--no-chdir", "-vconsole:off", "--log-file=" + log}, args...),
		Dir:  h.Path, Env: h.env(), Log: log,
	})
	if err != nil {
		return nil, err
	}
	h.daemons = append(h.daemons, d)
	return d, nil
}

// Close stops ovn-controller, ovs-vswitchd and the database server, in
// that order.
func (h *Hypervisor) Close() {
	for i := len(h.daemons) - 1; i >= 0; i-- {
		h.daemons[i].Stop()
	}
	h.daemons = nil
}

// Died is the error of the first of the hypervisor's daemons that has
// exited (quoting its log), or nil while all run.
func (h *Hypervisor) Died() error {
	for _, d := range h.daemons {
		if d.Exited() {
			return d.DeathError()
		}
	}
	return nil
}

func (h *Hypervisor) path(name string) string { return filepath.Join(h.Path, name) }

func (h *Hypervisor) dbRemote() string { return "unix:" + h.path("db.sock") }

// env points the OVS and OVN programs' run, log and database directories
// at the hypervisor's.
func (h *Hypervisor) env() []string {
	env := os.Environ()
	for _, v := range []string{"OVS_RUNDIR", "OVN_RUNDIR", "OVS_LOGDIR", "OVN_LOGDIR", "OVS_DBDIR", "OVS_SYSCONFDIR"} {
		env = append(env, v+"="+h.Path)
	}
	return env
}

// command prepares one of the hypervisor's programs to run in its
// directory.
func (h *Hypervisor) command(ctx context.Context, program string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, h.tools[program], args...)
	cmd.Dir, cmd.Env = h.Path, h.env()
	return cmd
}

// run runs one of the hypervisor's programs and returns its output.
func (h *Hypervisor) run(ctx context.Context, program string, args ...string) (string, error) {
	// A bound against hangs; the programs' own --timeout is the real one.
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := h.command(ctx, program, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return "", fmt.Errorf("%s %s: %w: %s", program, strings.Join(args, " "), err, stderr)
	}
	return string(out), nil
}

// Vsctl runs ovs-vsctl on the hypervisor's Open_vSwitch database.
func (h *Hypervisor) Vsctl(ctx context.Context, args ...string) (string, error) {
	return h.run(ctx, "ovs-vsctl", append([]string{"--timeout=30", "--db=" + h.dbRemote()}, args...)...)
}

// Appctl runs an ovs-appctl command of the hypervisor's ovs-vswitchd.
func (h *Hypervisor) Appctl(ctx context.Context, args ...string) (string, error) {
	return h.run(ctx, "ovs-appctl", append([]string{"--timeout=30", "-t", h.path("ovs-vswitchd.ctl")}, args...)...)
}

// Ofctl runs ovs-ofctl on the hypervisor's ovs-vswitchd, such as
// "dump-flows br-int".
func (h *Hypervisor) Ofctl(ctx context.Context, args ...string) (string, error) {
	return h.run(ctx, "ovs-ofctl", append([]string{"--timeout=30"}, args...)...)
}

// AddPort adds the dummy port name to bridge, with its sent packets in
// TxPcap(name) and its received ones in DIR/NAME-rx.pcap, and columns
// (ovs-vsctl's COLUMN=VALUE of its Interface row, such as
// external-ids:iface-id=LSP).
func (h *Hypervisor) AddPort(ctx context.Context, bridge, name string, columns ...string) error {
	args := []string{"add-port", bridge, name, "--", "set", "Interface", name,
		"options:tx_pcap=" + h.TxPcap(name), "options:rxq_pcap=" + h.path(name+"-rx.pcap")}
	_, err := h.Vsctl(ctx, append(args, columns...)...)
	return err
}

// TxPcap is the pcap file of the packets the port name sends (added by
// AddPort).
func (h *Hypervisor) TxPcap(name string) string { return h.path(name + "-tx.pcap") }

// Receive makes the dummy port receive packet (an Ethernet frame), as if
// it came from the wire.
func (h *Hypervisor) Receive(ctx context.Context, port string, packet []byte) error {
	_, err := h.Appctl(ctx, "netdev-dummy/receive", port, hex.EncodeToString(packet))
	return err
}
