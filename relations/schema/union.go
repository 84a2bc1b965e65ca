package schema

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Union is the union of every release's NB (nb true) or SB schema: every
// table and column of any of them, a column's type the newest release's
// but for its enum, which holds the values any release allows (an older
// release's database may hold one a newer one dropped, as "stt" in SB
// Encap type). Its version is the newest release's. The models are
// generated from it (relations/nb, relations/sb).
func Union(nb bool) ([]byte, error) {
	var out map[string]any
	for _, r := range Releases() {
		text := r.SB()
		if nb {
			text = r.NB()
		}
		var s map[string]any
		if err := json.Unmarshal(text, &s); err != nil {
			return nil, fmt.Errorf("%s schema: %w", r, err)
		}
		if out == nil {
			out = s
			continue
		}
		merged := s["tables"].(map[string]any)
		for name, old := range out["tables"].(map[string]any) {
			t, ok := merged[name].(map[string]any)
			if !ok {
				merged[name] = old
				continue
			}
			cols := t["columns"].(map[string]any)
			for col, oc := range old.(map[string]any)["columns"].(map[string]any) {
				c, ok := cols[col].(map[string]any)
				if !ok {
					cols[col] = oc
					continue
				}
				mergeEnums(c["type"], oc.(map[string]any)["type"])
			}
		}
		out = s
	}
	return json.MarshalIndent(out, "", "  ")
}

// mergeEnums adds to the enums of column type t the values of old's.
func mergeEnums(t, old any) {
	tm, ok1 := t.(map[string]any)
	om, ok2 := old.(map[string]any)
	if !ok1 || !ok2 {
		return
	}
	for _, part := range []string{"key", "value"} {
		b, ok1 := tm[part].(map[string]any)
		ob, ok2 := om[part].(map[string]any)
		if !ok1 || !ok2 {
			continue
		}
		e, ok1 := b["enum"].([]any)
		oe, ok2 := ob["enum"].([]any)
		if !ok1 || !ok2 || len(e) != 2 || len(oe) != 2 {
			continue
		}
		vals, ok1 := e[1].([]any)
		ovals, ok2 := oe[1].([]any)
		if !ok1 || !ok2 {
			continue
		}
		merged := slices.Clone(vals)
		for _, v := range ovals {
			if !slices.ContainsFunc(vals, func(n any) bool { return fmt.Sprint(n) == fmt.Sprint(v) }) {
				merged = append(merged, v)
			}
		}
		b["enum"] = []any{"set", merged}
	}
}
