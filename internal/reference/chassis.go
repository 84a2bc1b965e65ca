package reference

import (
	"context"
	"encoding/json"
	"fmt"
)

// ChassisOtherConfigs gives the other_config column of every SB Chassis
// row (what ovn-controllers, or a scenario's ovn-sbctl, wrote): the chassis
// features northd reads from it change some flows.
func (r *Instance) ChassisOtherConfigs(ctx context.Context) ([]map[string]string, error) {
	res, err := r.transact(ctx, r.SBRemote(), []any{"OVN_Southbound",
		map[string]any{"op": "select", "table": "Chassis", "where": []any{}, "columns": []string{"other_config"}}})
	if err != nil {
		return nil, err
	}
	var sel struct {
		Rows []struct {
			OtherConfig [2]json.RawMessage `json:"other_config"`
		}
	}
	if err := json.Unmarshal(res[0], &sel); err != nil {
		return nil, fmt.Errorf("reference: Chassis rows: %w", err)
	}
	var out []map[string]string
	for _, row := range sel.Rows {
		// An OVSDB map is ["map", [[key, value], ...]].
		var pairs [][2]string
		if err := json.Unmarshal(row.OtherConfig[1], &pairs); err != nil {
			return nil, fmt.Errorf("reference: Chassis other_config %s: %w", row.OtherConfig[1], err)
		}
		m := make(map[string]string, len(pairs))
		for _, kv := range pairs {
			m[kv[0]] = kv[1]
		}
		out = append(out, m)
	}
	return out, nil
}
