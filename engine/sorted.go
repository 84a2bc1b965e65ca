package engine

import (
	"iter"
	"slices"
)

// Sorted is an immutable sorted sequence behind a comparable handle: two
// handles are equal when they are the same sequence, not when their contents
// are. It is stored in chunks, so that Collect derives a group's next
// version from the last by copying the chunks an edit touches and the list
// of chunks, not every element.
type Sorted[T any] struct{ s *chunked[T] }

// chunked is a sequence cut in non-empty chunks; ends[i] is the number of
// elements in chunks[0..i].
type chunked[T any] struct {
	chunks [][]T
	ends   []int
}

// chunkSize is the length of the chunks a sequence is cut in; an edit splits
// a chunk that grows past twice as much.
const chunkSize = 64

func sortedOfChunks[T any](chunks [][]T) Sorted[T] {
	switch len(chunks) {
	case 0:
		return Sorted[T]{}
	case 1:
		return sortedOfChunk(chunks[0])
	}
	ends := make([]int, len(chunks))
	n := 0
	for i, c := range chunks {
		n += len(c)
		ends[i] = n
	}
	return Sorted[T]{&chunked[T]{chunks, ends}}
}

// oneChunk is a sequence of one chunk in one allocation with its list of
// chunks and of ends, and oneTuple one of a single element, its chunk
// included: most groups are that small, and each allocation is another
// object for the collector to mark.
type oneChunk[T any] struct {
	chunked[T]
	list [1][]T
	end  [1]int
}

type oneTuple[T any] struct {
	oneChunk[T]
	elem [1]T
}

// sortedOfFlat returns the sequence ts (sorted) cut in chunks of size.
func sortedOfFlat[T any](ts []T, size int) Sorted[T] {
	if len(ts) <= size {
		return sortedOfChunk(ts)
	}
	return sortedOfChunks(cut(ts, size))
}

// sortedOfChunk returns the sequence c (sorted) as one chunk, sharing its
// array unless it is one element.
func sortedOfChunk[T any](c []T) Sorted[T] {
	var o *oneChunk[T]
	switch len(c) {
	case 0:
		return Sorted[T]{}
	case 1:
		one := &oneTuple[T]{elem: [1]T{c[0]}}
		o, c = &one.oneChunk, one.elem[:]
	default:
		o = &oneChunk[T]{}
	}
	o.list[0], o.end[0] = c, len(c)
	o.chunks, o.ends = o.list[:], o.end[:]
	return Sorted[T]{&o.chunked}
}

// cut splits ts into chunks of size elements (the last may be shorter),
// sharing its array.
func cut[T any](ts []T, size int) [][]T {
	chunks := make([][]T, 0, (len(ts)+size-1)/size)
	for len(ts) > size {
		chunks = append(chunks, ts[:size:size])
		ts = ts[size:]
	}
	if len(ts) > 0 {
		chunks = append(chunks, ts)
	}
	return chunks
}

// SortedOf returns a handle to a sorted copy of ts.
func SortedOf[T any](ts []T, cmp func(T, T) int) Sorted[T] {
	s := slices.Clone(ts)
	slices.SortFunc(s, cmp)
	return sortedOfFlat(s, chunkSize)
}

// Len returns the number of elements.
func (s Sorted[T]) Len() int {
	if s.s == nil {
		return 0
	}
	return s.s.ends[len(s.s.ends)-1]
}

// At returns the i'th element.
func (s Sorted[T]) At(i int) T {
	j, _ := slices.BinarySearch(s.s.ends, i+1) // the first chunk ending past i
	if j > 0 {
		i -= s.s.ends[j-1]
	}
	return s.s.chunks[j][i]
}

// All iterates over the elements in order.
func (s Sorted[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		if s.s == nil {
			return
		}
		for _, c := range s.s.chunks {
			for _, t := range c {
				if !yield(t) {
					return
				}
			}
		}
	}
}

// editSorted returns a new Sorted holding s (sorted by cmp) without the
// tuples of del (all in s) and with those of ins (none in s). It sorts ins in
// place. A few changes edit copies of the chunks they fall in, which stay
// between 1 and 2*size long; as many changes as s has chunks, or an edit
// that leaves twice the chunks the size needs, rebuild it in chunks of size.
func editSorted[T comparable](s Sorted[T], ins, del []T, cmp func(T, T) int, size int) Sorted[T] {
	slices.SortFunc(ins, cmp)
	if (len(ins)+len(del))*size >= s.Len() {
		return rechunk(s, ins, del, cmp, size)
	}
	chunks := s.s.chunks
	type edit struct{ ins, del []T }
	edits := map[int]*edit{}
	at := func(j int) *edit {
		e := edits[j]
		if e == nil {
			e = &edit{}
			edits[j] = e
		}
		return e
	}
	for _, t := range del {
		if j := chunkHolding(chunks, t, cmp); j >= 0 {
			e := at(j)
			e.del = append(e.del, t)
		}
	}
	for _, t := range ins {
		// The first chunk whose last tuple is not below t, else the last.
		j, _ := slices.BinarySearchFunc(chunks, t, func(c []T, t T) int { return cmp(c[len(c)-1], t) })
		e := at(min(j, len(chunks)-1))
		e.ins = append(e.ins, t)
	}
	next := make([][]T, 0, len(chunks)+len(edits))
	n := 0
	for j, c := range chunks {
		if e := edits[j]; e != nil {
			c = editFlat(c, e.ins, e.del, cmp)
		}
		switch {
		case len(c) > 2*size:
			next = append(next, cut(c, size)...)
		case len(c) > 0:
			next = append(next, c)
		}
		n += len(c)
	}
	if len(next) > 2*(n/size+1) {
		return rechunk(sortedOfChunks(next), nil, nil, cmp, size)
	}
	return sortedOfChunks(next)
}

// rechunk is editSorted done on a flat copy of s, cut in chunks of size.
func rechunk[T comparable](s Sorted[T], ins, del []T, cmp func(T, T) int, size int) Sorted[T] {
	flat := make([]T, 0, s.Len())
	for t := range s.All() {
		flat = append(flat, t)
	}
	return sortedOfFlat(editFlat(flat, ins, del, cmp), size)
}

// chunkHolding returns the index of the chunk that holds t, or -1.
func chunkHolding[T comparable](chunks [][]T, t T, cmp func(T, T) int) int {
	j, _ := slices.BinarySearchFunc(chunks, t, func(c []T, t T) int { return cmp(c[len(c)-1], t) })
	// Tuples that cmp ties with t may run over several chunks.
	for ; j < len(chunks) && cmp(chunks[j][0], t) <= 0; j++ {
		if slices.Contains(chunks[j], t) {
			return j
		}
	}
	// cmp is not a consistent order.
	return slices.IndexFunc(chunks, func(c []T) bool { return slices.Contains(c, t) })
}

// editFlat returns old (sorted by cmp) without the tuples of del and with
// those of ins (sorted by cmp, none in old), sorted. It may return old
// itself, which it never modifies.
func editFlat[T comparable](old, ins, del []T, cmp func(T, T) int) []T {
	if len(del) > 0 {
		gone := make(map[T]struct{}, len(del))
		for _, t := range del {
			gone[t] = struct{}{}
		}
		kept := make([]T, 0, len(old)+len(ins))
		for _, t := range old {
			if _, ok := gone[t]; !ok {
				kept = append(kept, t)
			}
		}
		old = kept
	}
	if len(ins) == 0 {
		return old
	}
	next := make([]T, 0, len(old)+len(ins))
	from := 0
	for _, t := range ins {
		i, _ := slices.BinarySearchFunc(old, t, cmp)
		i = max(i, from)
		next = append(append(next, old[from:i]...), t)
		from = i
	}
	return append(next, old[from:]...)
}

// diffPositions calls f for each position at which old and new hold
// different tuples, or only one of them holds one, with the tuple each holds
// there. Chunks that the two share at the same position are skipped whole,
// so after an edit the walk costs the chunk list plus the positions whose
// tuple changed.
func diffPositions[T comparable](old, new Sorted[T], f func(i int, o T, inOld bool, n T, inNew bool)) {
	oc, nc := chunksOf(old), chunksOf(new)
	oi, oj, ni, nj := 0, 0, 0, 0 // chunk, and position in it, of each walk
	for pos := 0; oi < len(oc) || ni < len(nc); pos++ {
		inOld, inNew := oi < len(oc), ni < len(nc)
		if inOld && inNew && oj == 0 && nj == 0 && len(oc[oi]) == len(nc[ni]) && &oc[oi][0] == &nc[ni][0] {
			pos += len(oc[oi]) - 1
			oi, ni = oi+1, ni+1
			continue
		}
		var o, n T
		if inOld {
			o = oc[oi][oj]
			if oj++; oj == len(oc[oi]) {
				oi, oj = oi+1, 0
			}
		}
		if inNew {
			n = nc[ni][nj]
			if nj++; nj == len(nc[ni]) {
				ni, nj = ni+1, 0
			}
		}
		if !inOld || !inNew || o != n {
			f(pos, o, inOld, n, inNew)
		}
	}
}

func chunksOf[T any](s Sorted[T]) [][]T {
	if s.s == nil {
		return nil
	}
	return s.s.chunks
}
