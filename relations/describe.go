package relations

import (
	"fmt"
	"reflect"
	"strings"
)

// DescribeTuple shows a tuple of the rules for a log line as fmt's %v does,
// except that a pointer to an NB row shows as the row's table, name (for
// tables with a name column) and _uuid, `Load_Balancer "lb0" (_uuid …)`,
// where %v would print the pointer's address. Unexported fields, nested
// structs and sequences (engine.Sorted) are shown the same way.
func (n *NB) DescribeTuple(t any) string {
	var b strings.Builder
	n.describe(&b, reflect.ValueOf(t), 0)
	return b.String()
}

// maxDescribeDepth bounds how deep DescribeTuple follows pointers, in case
// a tuple's pointers loop.
const maxDescribeDepth = 8

func (n *NB) describe(b *strings.Builder, v reflect.Value, depth int) {
	if !v.IsValid() || (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		b.WriteString("<nil>")
		return
	}
	if table, ok := n.tables[v.Type()]; ok {
		describeRow(b, table, v.Elem())
		return
	}
	if v.CanInterface() {
		if s, ok := v.Interface().(fmt.Stringer); ok {
			b.WriteString(s.String())
			return
		}
	}
	if depth == maxDescribeDepth {
		fmt.Fprint(b, v)
		return
	}
	if n.describeSeq(b, v, depth) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		n.describe(b, v.Elem(), depth+1)
	case reflect.Struct:
		n.describeList(b, "{}", v.NumField(), v.Field, depth)
	case reflect.Slice, reflect.Array:
		n.describeList(b, "[]", v.Len(), v.Index, depth)
	default:
		fmt.Fprint(b, v)
	}
}

// describeSeq shows v as a list if it is a sequence read through Len and
// At, as engine.Sorted is, and reports whether it was one.
func (n *NB) describeSeq(b *strings.Builder, v reflect.Value, depth int) bool {
	if !v.CanInterface() {
		return false
	}
	l, at := v.MethodByName("Len"), v.MethodByName("At")
	intT := reflect.TypeFor[int]()
	if !l.IsValid() || !at.IsValid() || l.Type() != reflect.FuncOf(nil, []reflect.Type{intT}, false) ||
		at.Type().NumIn() != 1 || at.Type().In(0) != intT || at.Type().NumOut() != 1 {
		return false
	}
	n.describeList(b, "[]", int(l.Call(nil)[0].Int()), func(i int) reflect.Value {
		return at.Call([]reflect.Value{reflect.ValueOf(i)})[0]
	}, depth)
	return true
}

// describeList shows count elements between the two brackets of brackets,
// separated by spaces, as %v shows a struct's fields or a slice.
func (n *NB) describeList(b *strings.Builder, brackets string, count int, elem func(int) reflect.Value, depth int) {
	b.WriteByte(brackets[0])
	for i := range count {
		if i > 0 {
			b.WriteByte(' ')
		}
		n.describe(b, elem(i), depth+1)
	}
	b.WriteByte(brackets[1])
}

// describeRow shows an NB row, a model struct, by table, name and _uuid.
func describeRow(b *strings.Builder, table string, row reflect.Value) {
	b.WriteString(table)
	switch name := row.FieldByName("Name"); {
	case name.Kind() == reflect.String:
		fmt.Fprintf(b, " %q", name.String())
	case name.Kind() == reflect.Pointer && !name.IsNil() && name.Elem().Kind() == reflect.String:
		fmt.Fprintf(b, " %q", name.Elem().String())
	}
	fmt.Fprintf(b, " (_uuid %s)", row.FieldByName("UUID").String())
}
