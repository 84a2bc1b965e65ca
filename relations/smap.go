package relations

import "strings"

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
