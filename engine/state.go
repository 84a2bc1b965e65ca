package engine

import (
	"hash/maphash"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// StateSize is what one operator keeps between steps: for finding where a
// program's memory goes (Circuit.StateSizes).
type StateSize struct {
	// Op is the operator ("IndexBy", "Distinct", "NewInput", ...) and
	// Site the file:line of the code outside this package that added it.
	Op, Site string
	// Key and Tuple are the types of the keys and tuples it holds (Key
	// empty for an operator without keys).
	Key, Tuple string
	Keys       int // keys held (0 without keys)
	Tuples     int // tuples held, each with its weight
	// Bytes estimates the memory of the structure: its maps (by their
	// length), slices (by their capacity) and the tuples held in them,
	// not what the tuples point to, which they may share.
	Bytes int64
	// Reads numbers the relation the operator reads, the same number for
	// every operator reading the same one (-1: several, or none).
	Reads int
	// Digest sums a hash of every key, tuple and weight held: two
	// arrangements of one relation with the same digest hold the same
	// groups, so one could serve the readers of both (0 for operators
	// other than IndexBy).
	Digest uint64
}

// sites are the program counters of the calls that added an operator,
// from the one into this package outward: enough to reach the caller of
// the outermost operator (Max calls Min calls Collect calls add).
type sites [6]uintptr

// StateSizes reports, for each operator that keeps state between steps,
// how much it holds, in the order the operators were added.
func (c *Circuit) StateSizes() []StateSize {
	var out []StateSize
	ids := map[changer]int{}
	for i := range c.ops {
		o := &c.ops[i]
		if o.state == nil {
			continue
		}
		s := o.state()
		s.Op, s.Site = o.sites.describe()
		s.Reads = -1
		if len(o.ins) == 1 {
			if _, ok := ids[o.ins[0]]; !ok {
				ids[o.ins[0]] = len(ids)
			}
			s.Reads = ids[o.ins[0]]
		}
		out = append(out, s)
	}
	return out
}

// enginePrefix is the prefix of this package's function names.
var enginePrefix = func() string {
	name := runtime.FuncForPC(reflect.ValueOf(NewCircuit).Pointer()).Name()
	return name[:strings.LastIndex(name, ".")+1]
}()

// describe names the outermost operator of this package in the calls and
// the file:line that called it.
func (s *sites) describe() (op, site string) {
	frames := runtime.CallersFrames(s[:])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, enginePrefix) {
			if f.File != "" {
				site = f.File[strings.LastIndex(f.File, "/")+1:] + ":" + strconv.Itoa(f.Line)
			}
			return op, site
		}
		op = strings.TrimPrefix(f.Function, enginePrefix)
		if j := strings.IndexAny(op, "[."); j >= 0 {
			op = op[:j]
		}
		if !more {
			return op, site
		}
	}
}

// typeName is the name of type T.
func typeName[T any]() string { return reflect.TypeFor[T]().String() }

// mapBytes estimates a Go map of n entries of key K and value V: a swiss
// table grown to a power of two of slots at most 7/8 full, each group of 8
// slots with an 8-byte control word.
func mapBytes[K comparable, V any](n int) int64 {
	if n == 0 {
		return 0
	}
	slots := 8
	for slots*7/8 < n {
		slots *= 2
	}
	var e struct {
		k K
		v V
	}
	return int64(slots) * int64(unsafe.Sizeof(e)+1)
}

// sliceBytes is the backing array of s.
func sliceBytes[T any](s []T) int64 {
	var t T
	return int64(cap(s)) * int64(unsafe.Sizeof(t))
}

// size reports an arrangement's keys, tuples and bytes.
func (a *arrangement[K, T]) size() StateSize {
	s := StateSize{Key: typeName[K](), Tuple: typeName[T](), Keys: len(a.one) + len(a.many),
		Bytes: mapBytes[K, T](len(a.one)) + mapBytes[K, []Change[T]](len(a.many)) + mapBytes[K, *tupleIndex[T]](len(a.big))}
	digest := func(k K, it Change[T]) {
		s.Digest += maphash.Comparable(hashSeed, struct {
			k K
			c Change[T]
		}{k, it})
	}
	for k, t := range a.one {
		s.Tuples++
		digest(k, Change[T]{t, 1})
	}
	for k, items := range a.many {
		s.Tuples += len(items)
		s.Bytes += sliceBytes(items)
		for _, it := range items {
			digest(k, it)
		}
	}
	for _, x := range a.big {
		s.Bytes += int64(unsafe.Sizeof(*x)) + sliceBytes(x.slots)
	}
	return s
}

// size reports a group's tuples and bytes.
func (g *group[T]) size() StateSize {
	s := StateSize{Tuple: typeName[T](), Tuples: g.len(), Bytes: sliceBytes(g.items)}
	if g.big != nil {
		s.Bytes += int64(unsafe.Sizeof(*g.big)) + sliceBytes(g.big.slots)
	}
	return s
}

// sortedState reports the tuples and bytes of sorted groups by key.
func sortedState[K comparable, T any](groups map[K]Sorted[T]) StateSize {
	s := StateSize{Key: typeName[K](), Tuple: typeName[T](), Keys: len(groups),
		Bytes: mapBytes[K, Sorted[T]](len(groups))}
	for _, g := range groups {
		s.Tuples += g.Len()
		s.Bytes += int64(unsafe.Sizeof(*g.s)) + sliceBytes(g.s.chunks) + sliceBytes(g.s.ends)
		for _, c := range g.s.chunks {
			s.Bytes += sliceBytes(c)
		}
	}
	return s
}
