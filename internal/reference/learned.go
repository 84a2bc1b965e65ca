package reference

import (
	"context"
	"encoding/json"
	"fmt"
)

// LearnedRoute is an SB Learned_Route row of the reference, its datapath
// and port named as the NB names them: the router's NB _uuid and the
// port's logical_port.
type LearnedRoute struct {
	Row, Router, Port, Prefix, Nexthop string
}

// LearnedRoutes gives the SB Learned_Route rows, which a scenario inserts
// with ovn-sbctl as ovn-controller would; rows whose datapath or port is
// not there are left out.
func (r *Instance) LearnedRoutes(ctx context.Context) ([]LearnedRoute, error) {
	selectAll := func(table string, columns ...string) map[string]any {
		return map[string]any{"op": "select", "table": table, "where": []any{}, "columns": append(columns, "_uuid")}
	}
	res, err := r.transact(ctx, r.SBRemote(), []any{"OVN_Southbound",
		selectAll("Learned_Route", "datapath", "logical_port", "ip_prefix", "nexthop"),
		selectAll("Datapath_Binding", "external_ids"),
		selectAll("Port_Binding", "logical_port")})
	if err != nil {
		return nil, err
	}
	var routes struct {
		Rows []struct {
			UUID        [2]string `json:"_uuid"`
			Datapath    [2]string `json:"datapath"`
			LogicalPort [2]string `json:"logical_port"`
			IPPrefix    string    `json:"ip_prefix"`
			Nexthop     string    `json:"nexthop"`
		}
	}
	var dps struct {
		Rows []struct {
			UUID        [2]string          `json:"_uuid"`
			ExternalIDs [2]json.RawMessage `json:"external_ids"`
		}
	}
	var pbs struct {
		Rows []struct {
			UUID        [2]string `json:"_uuid"`
			LogicalPort string    `json:"logical_port"`
		}
	}
	for i, v := range []any{&routes, &dps, &pbs} {
		if err := json.Unmarshal(res[i], v); err != nil {
			return nil, fmt.Errorf("reference: Learned_Route rows: %w", err)
		}
	}
	routers := map[string]string{}
	for _, dp := range dps.Rows {
		var pairs [][2]string
		if err := json.Unmarshal(dp.ExternalIDs[1], &pairs); err != nil {
			return nil, fmt.Errorf("reference: Datapath_Binding external_ids %s: %w", dp.ExternalIDs[1], err)
		}
		for _, kv := range pairs {
			if kv[0] == "logical-router" {
				routers[dp.UUID[1]] = kv[1]
			}
		}
	}
	ports := map[string]string{}
	for _, pb := range pbs.Rows {
		ports[pb.UUID[1]] = pb.LogicalPort
	}
	var out []LearnedRoute
	for _, rt := range routes.Rows {
		router, port := routers[rt.Datapath[1]], ports[rt.LogicalPort[1]]
		if router == "" || port == "" {
			continue
		}
		out = append(out, LearnedRoute{Row: rt.UUID[1], Router: router, Port: port, Prefix: rt.IPPrefix, Nexthop: rt.Nexthop})
	}
	return out, nil
}
