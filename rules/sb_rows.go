package rules

import (
	"slices"
	"strconv"
)

// Smap is an OVSDB string-to-string map column as a comparable value, so
// that SB row tuples holding one compare equal exactly when their contents
// do: the pairs in key order, each key and value Go-quoted.
type Smap string

// SmapOf encodes m.
func SmapOf(m map[string]string) Smap {
	keys := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		keys = append(keys, k)
		n += quotedLen(k) + quotedLen(v)
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	for _, k := range keys {
		b = strconv.AppendQuote(strconv.AppendQuote(b, k), m[k])
	}
	return Smap(b)
}

// quotedLen is the length of s Go-quoted when nothing in it is escaped.
func quotedLen(s string) int { return len(s) + 2 }

// Map decodes s; an empty Smap gives an empty, non-nil map.
func (s Smap) Map() map[string]string {
	ss := unquoteAll(string(s))
	m := make(map[string]string, len(ss)/2)
	for i := 0; i+1 < len(ss); i += 2 {
		m[ss[i]] = ss[i+1]
	}
	return m
}

// Strings is an OVSDB string set column as a comparable value: its members
// sorted, each Go-quoted.
type Strings string

// StringsOf encodes the set of ss.
func StringsOf(ss ...string) Strings {
	sorted := make([]string, len(ss))
	n := 0
	for i, s := range ss {
		sorted[i] = s
		n += quotedLen(s)
	}
	slices.Sort(sorted)
	b := make([]byte, 0, n)
	for _, s := range slices.Compact(sorted) {
		b = strconv.AppendQuote(b, s)
	}
	return Strings(b)
}

// Slice decodes s, in sorted order.
func (s Strings) Slice() []string { return unquoteAll(string(s)) }

// unquoteAll splits a concatenation of Go-quoted strings, as SmapOf and
// StringsOf write them; it stops at the first text that is not one.
func unquoteAll(s string) []string {
	var out []string
	for s != "" {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			break
		}
		u, _ := strconv.Unquote(q)
		out = append(out, u)
		s = s[len(q):]
	}
	return out
}
