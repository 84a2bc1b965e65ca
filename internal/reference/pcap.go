package reference

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Capture reads the packets a netdev-dummy port writes to its pcap file
// (options:tx_pcap) as the port writes them: those written since the last
// Mark, or since the start.
type Capture struct {
	path string
	// from is the file offset of the first packet record not marked.
	from int64
}

// NewCapture reads the pcap file path, which need not exist yet.
func NewCapture(path string) *Capture { return &Capture{path: path} }

// pcapHeaderLen and pcapRecordHeaderLen are the sizes of the libpcap
// file's global header and of each record's header.
const (
	pcapHeaderLen       = 24
	pcapRecordHeaderLen = 16
)

// Packets are the packets written since the last Mark, oldest first.
func (c *Capture) Packets() ([][]byte, error) {
	packets, _, err := c.read()
	return packets, err
}

// Mark leaves the packets written so far out of later Packets.
func (c *Capture) Mark() error {
	_, end, err := c.read()
	c.from = end
	return err
}

// read parses the file's complete records from c.from on and returns their
// packets and the offset after the last one. A missing or still empty file
// has none; a record still being written is left for the next read.
func (c *Capture) read() ([][]byte, int64, error) {
	data, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) || len(data) < pcapHeaderLen {
		return nil, c.from, nil
	}
	if err != nil {
		return nil, c.from, err
	}
	var order binary.ByteOrder
	switch magic := binary.LittleEndian.Uint32(data); magic {
	case 0xa1b2c3d4, 0xa1b23c4d: // microsecond, nanosecond timestamps
		order = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		order = binary.BigEndian
	default:
		return nil, c.from, fmt.Errorf("%s: not a pcap file (magic %#x)", c.path, magic)
	}
	var packets [][]byte
	off := max(c.from, pcapHeaderLen)
	for off+pcapRecordHeaderLen <= int64(len(data)) {
		n := int64(order.Uint32(data[off+8:])) // incl_len
		end := off + pcapRecordHeaderLen + n
		if end > int64(len(data)) {
			break
		}
		packets = append(packets, data[off+pcapRecordHeaderLen:end])
		off = end
	}
	return packets, off, nil
}
