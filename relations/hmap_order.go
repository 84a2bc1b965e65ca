package relations

import (
	"encoding/binary"
	"math/bits"
)

// ovsHashString is Open vSwitch's hash_string(s, 0) (lib/hash.c hash_bytes,
// the MurmurHash3-based variant of builds without SSE 4.2): the hash that
// orders OVS string sets and maps.
func ovsHashString(s string) uint32 {
	add := func(h, data uint32) uint32 {
		if data != 0 {
			data *= 0xcc9e2d51
			data = bits.RotateLeft32(data, 15)
			data *= 0x1b873593
			h ^= data
		}
		return bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	var h uint32
	b := []byte(s)
	for ; len(b) >= 4; b = b[4:] {
		h = add(h, binary.LittleEndian.Uint32(b))
	}
	if len(b) > 0 {
		var tail [4]byte
		copy(tail[:], b)
		h = add(h, binary.LittleEndian.Uint32(tail[:]))
	}
	h ^= uint32(len(s))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// SsetOrder returns the distinct strings of ss in the order in which
// SSET_FOR_EACH visits an OVS sset they were added to in that order: hash
// bucket by bucket, the latest insertion first within a bucket, as the
// hmap grows (include/openvswitch/hmap.h, lib/hmap.c). northd prints some
// sets in this order.
func SsetOrder(ss []string) []string {
	type node struct {
		s    string
		hash uint32
	}
	buckets := [][]node{nil} // each bucket from its head
	n, mask := 0, uint32(0)
	seen := map[string]bool{}
	for _, s := range ss {
		if seen[s] {
			continue
		}
		seen[s] = true
		h := ovsHashString(s)
		buckets[h&mask] = append([]node{{s, h}}, buckets[h&mask]...)
		n++
		if uint32(n/2) <= mask {
			continue
		}
		newMask := calcMask(n)
		if newMask <= mask {
			continue
		}
		grown := make([][]node, newMask+1)
		for _, b := range buckets {
			for _, x := range b {
				grown[x.hash&newMask] = append([]node{x}, grown[x.hash&newMask]...)
			}
		}
		buckets, mask = grown, newMask
	}
	out := make([]string, 0, n)
	for _, b := range buckets {
		for _, x := range b {
			out = append(out, x.s)
		}
	}
	return out
}

// calcMask is lib/hmap.c calc_mask: the bucket mask of an hmap that holds
// capacity nodes.
func calcMask(capacity int) uint32 {
	m := uint32(capacity / 2)
	m |= m >> 1
	m |= m >> 2
	m |= m >> 4
	m |= m >> 8
	m |= m >> 16
	return m | (m&1)<<1
}
