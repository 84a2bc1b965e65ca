package reference

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// pcapRecord is one libpcap record of packet, little-endian.
func pcapRecord(packet []byte) []byte {
	h := make([]byte, pcapRecordHeaderLen)
	binary.LittleEndian.PutUint32(h[8:], uint32(len(packet)))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(packet)))
	return append(h, packet...)
}

func TestCapture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "port-tx.pcap")
	c := NewCapture(path)
	check := func(want ...[]byte) {
		t.Helper()
		got, err := c.Packets()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("packets %x, want %x", got, want)
		}
	}
	check() // no file yet
	header := make([]byte, pcapHeaderLen)
	binary.LittleEndian.PutUint32(header, 0xa1b2c3d4)
	a, b, partial := []byte{1, 2, 3}, []byte{4, 5}, pcapRecord([]byte{6, 7, 8, 9})
	write := func(data ...[]byte) {
		t.Helper()
		if err := os.WriteFile(path, slices.Concat(data...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(header)
	check()
	write(header, pcapRecord(a), pcapRecord(b), partial[:len(partial)-1])
	check(a, b) // a record still being written is not read
	if err := c.Mark(); err != nil {
		t.Fatal(err)
	}
	check()
	write(header, pcapRecord(a), pcapRecord(b), partial)
	check([]byte{6, 7, 8, 9})
	write([]byte("not a pcap file, but long enough"))
	if _, err := c.Packets(); err == nil {
		t.Error("no error for a file that is not pcap")
	}
}
