package reference

import (
	"context"
	"encoding/json"
	"fmt"
)

// ChassisRow is what northd reads of an SB Chassis row (what
// ovn-controllers, or a scenario's ovn-sbctl, wrote).
type ChassisRow struct {
	UUID, Name, Hostname string
	OtherConfig          map[string]string
}

// Chassis gives every SB Chassis row.
func (r *Instance) Chassis(ctx context.Context) ([]ChassisRow, error) {
	res, err := r.transact(ctx, r.SBRemote(), []any{"OVN_Southbound",
		map[string]any{"op": "select", "table": "Chassis", "where": []any{}, "columns": []string{"_uuid", "name", "hostname", "other_config"}}})
	if err != nil {
		return nil, err
	}
	var sel struct {
		Rows []struct {
			UUID        [2]string          `json:"_uuid"`
			Name        string             `json:"name"`
			Hostname    string             `json:"hostname"`
			OtherConfig [2]json.RawMessage `json:"other_config"`
		}
	}
	if err := json.Unmarshal(res[0], &sel); err != nil {
		return nil, fmt.Errorf("reference: Chassis rows: %w", err)
	}
	var out []ChassisRow
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
		out = append(out, ChassisRow{UUID: row.UUID[1], Name: row.Name, Hostname: row.Hostname, OtherConfig: m})
	}
	return out, nil
}

// ChassisOtherConfigs gives the other_config column of every SB Chassis
// row: the chassis features northd reads from it change some flows.
func (r *Instance) ChassisOtherConfigs(ctx context.Context) ([]map[string]string, error) {
	rows, err := r.Chassis(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]string, len(rows))
	for i, row := range rows {
		out[i] = row.OtherConfig
	}
	return out, nil
}
