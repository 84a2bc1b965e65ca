package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// QueueIDs gives the qdisc_queue_id of each Port_Binding whose options
// hold a readable, positive one, by logical port.
func (r *Instance) QueueIDs(ctx context.Context) (map[string]int, error) {
	res, err := r.transact(ctx, r.SBRemote(), []any{"OVN_Southbound",
		map[string]any{"op": "select", "table": "Port_Binding", "where": []any{}, "columns": []string{"logical_port", "options"}}})
	if err != nil {
		return nil, err
	}
	var pbs struct {
		Rows []struct {
			LogicalPort string             `json:"logical_port"`
			Options     [2]json.RawMessage `json:"options"`
		}
	}
	if err := json.Unmarshal(res[0], &pbs); err != nil {
		return nil, fmt.Errorf("reference: Port_Binding rows: %w", err)
	}
	out := map[string]int{}
	for _, pb := range pbs.Rows {
		var pairs [][2]string
		if err := json.Unmarshal(pb.Options[1], &pairs); err != nil {
			return nil, fmt.Errorf("reference: Port_Binding options %s: %w", pb.Options[1], err)
		}
		for _, kv := range pairs {
			if id, err := strconv.Atoi(kv[1]); kv[0] == "qdisc_queue_id" && err == nil && id > 0 {
				out[pb.LogicalPort] = id
			}
		}
	}
	return out, nil
}
