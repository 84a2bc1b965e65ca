package rules

import (
	"fmt"
	"strings"
)

// jsonKey is a port name as northd writes it in flows (ovn_port's json_key):
// a JSON string as OVS's json_serialize_string prints it. Bytes from 0x20 up
// are copied as they are (UTF-8 included) except '"' and '\\'; control
// characters use the short escapes where JSON has one, else \u00XX.
func jsonKey(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == 0:
			// C strings end at the first NUL.
			b.WriteByte('"')
			return b.String()
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= ' ':
			b.WriteByte(c)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\r':
			b.WriteString(`\r`)
		default:
			fmt.Fprintf(&b, `\u%04x`, c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
