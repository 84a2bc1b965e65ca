package relations

import (
	"math"
	"strconv"
	"strings"
)

// SmapBool reads a boolean option the way OVS's smap_get_bool does: with
// default false only a case-insensitive "true" is true; with default true
// anything but a case-insensitive "false" is true.
func SmapBool(m map[string]string, key string, def bool) bool {
	v := m[key]
	if def {
		return !strings.EqualFold(v, "false")
	}
	return strings.EqualFold(v, "true")
}

// SmapInt reads an integer option the way OVS's smap_get_int does: a whole
// base-10 C int (leading spaces and a sign allowed), else def.
func SmapInt(m map[string]string, key string, def int) int {
	v, ok := m[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimLeft(v, " \t\n\v\f\r"), 10, 64)
	if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
		return def
	}
	return int(n)
}

// SmapUint reads an unsigned option the way OVS's smap_get_uint does: a
// whole base-10 C unsigned int (leading spaces and a sign allowed, negative
// values refused), else def.
func SmapUint(m map[string]string, key string, def uint32) uint32 {
	v, ok := m[key]
	if !ok {
		return def
	}
	if n, ok := ParseUint(v); ok {
		return n
	}
	return def
}

// ParseUint reads s the way OVS's str_to_uint does: a whole base-10 C
// unsigned int, leading spaces and a sign allowed, negative values refused.
func ParseUint(s string) (uint32, bool) {
	n, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\v\f\r"), 10, 64)
	if err != nil || n < 0 || n > math.MaxUint32 {
		return 0, false
	}
	return uint32(n), true
}

// SmapLlong reads a 64-bit integer option the way OVN's
// ovn_smap_get_llong does: a whole base-10 C long long (leading spaces and
// a sign allowed), else def.
func SmapLlong(m map[string]string, key string, def int64) int64 {
	v, ok := m[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimLeft(v, " \t\n\v\f\r"), 10, 64)
	if err != nil {
		return def
	}
	return n
}
