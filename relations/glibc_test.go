package relations

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
)

// glibcScript reads lines "pton STRING" or "ntop HEX" and answers each with
// what glibc's inet_pton(AF_INET6) or inet_ntop(AF_INET6) gives ("-" for a
// rejected string); Python's socket module calls glibc's functions.
const glibcScript = `
import socket, sys
for line in sys.stdin:
    op, arg = line.rstrip("\n").split(" ", 1)
    if op == "pton":
        try:
            print(socket.inet_pton(socket.AF_INET6, arg).hex())
        except OSError:
            print("-")
    else:
        print(socket.inet_ntop(socket.AF_INET6, bytes.fromhex(arg)))
`

// inetPton6 and FormatIPv6 must agree with glibc, which northd calls, on
// random strings shaped like IPv6 addresses and on random addresses with
// runs of zero groups.
func TestIPv6AgainstGlibc(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: it is the way to call glibc's inet_pton/inet_ntop")
	}
	r := rand.New(rand.NewPCG(7, 7))
	parts := []string{"0", "1", "ff", "FFFF", "12345", "abcd", "0db8", "", "", "1.2.3.4", "01.2.3.4", "256.1.1.1", "1.2.3"}
	var strs []string
	for range 20000 {
		n := 1 + r.IntN(9)
		groups := make([]string, n)
		for k := range groups {
			groups[k] = parts[r.IntN(len(parts))]
		}
		strs = append(strs, strings.Join(groups, ":"))
	}
	var addrs [][16]byte
	for range 20000 {
		var b [16]byte
		for k := 0; k < 16; k += 2 {
			if r.IntN(2) == 0 {
				b[k], b[k+1] = byte(r.IntN(3)), byte(r.IntN(256))
			}
		}
		addrs = append(addrs, b)
	}
	var in strings.Builder
	for _, s := range strs {
		fmt.Fprintf(&in, "pton %s\n", s)
	}
	for _, b := range addrs {
		fmt.Fprintf(&in, "ntop %x\n", b)
	}
	cmd := exec.Command("python3", "-c", glibcScript)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	fails := 0
	for _, s := range strs {
		sc.Scan()
		want := sc.Text()
		got := "-"
		if ip, ok := inetPton6(s); ok {
			got = hex.EncodeToString(ip[:])
		}
		if got != want && fails < 20 {
			fails++
			t.Errorf("inetPton6(%q) = %s; glibc %s", s, got, want)
		}
	}
	for _, b := range addrs {
		sc.Scan()
		if got, want := FormatIPv6(netip.AddrFrom16(b)), sc.Text(); got != want && fails < 20 {
			fails++
			t.Errorf("FormatIPv6(%x) = %s; glibc %s", b, got, want)
		}
	}
}
