package rules_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	lovsdb "github.com/ovn-org/libovsdb/ovsdb"

	"github.com/northlog/northlog/ovsdb"
	"github.com/northlog/northlog/relations/schema"
)

// nbCoverage records, for each NB column and each key of an NB map
// column, the first scenario whose NB database sets it: which of the
// NB's features the differential scenarios put before the reference.
type nbCoverage struct {
	mu        sync.Mutex
	schema    lovsdb.DatabaseSchema
	scenarios int
	first     map[string]string // "Table.column" or "Table.column:key" -> scenario
}

// add records what the NB database file of scenario sets.
func (c *nbCoverage) add(scenario, nbFile string) error {
	db, err := ovsdb.ReadDatabaseFile(nbFile)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		c.schema, c.first = db.Schema, map[string]string{}
	}
	c.scenarios++
	note := func(what string) {
		if _, ok := c.first[what]; !ok {
			c.first[what] = scenario
		}
	}
	for table, rows := range db.Tables {
		for _, row := range rows {
			for column, v := range row {
				what := table + "." + column
				switch v := v.(type) {
				case lovsdb.OvsMap:
					for k := range v.GoMap {
						note(fmt.Sprintf("%s:%v", what, k))
					}
					if len(v.GoMap) > 0 {
						note(what)
					}
				case lovsdb.OvsSet:
					if len(v.GoSet) > 0 {
						note(what)
					}
				default:
					if v != db.Default(table, column) {
						note(what)
					}
				}
			}
		}
	}
	return nil
}

// uncovered are the schema's columns no scenario set.
func (c *nbCoverage) uncovered() []string {
	var out []string
	for table, ts := range c.schema.Tables {
		for column := range ts.Columns {
			if _, ok := c.first[table+"."+column]; !ok {
				out = append(out, table+"."+column)
			}
		}
	}
	slices.Sort(out)
	return out
}

// report lists each column and key with the first scenario that sets it.
func (c *nbCoverage) report() string {
	var b strings.Builder
	for _, what := range slices.Sorted(maps.Keys(c.first)) {
		fmt.Fprintf(&b, "%s\t%s\n", what, c.first[what])
	}
	return b.String()
}

// notReadByNorthd2303 are the columns of 23.03's NB that ovn-northd
// 23.03.1 does not read: the databases' own settings (for ovsdb-server
// and the tools), columns it only writes (NB_Global.hv_cfg_timestamp, the
// prefix delegation's Logical_Router_Port.ipv6_prefix), and external_ids
// but those of switches, routers (neutron:network_name,
// neutron:router_name) and switch ports (copied to Port_Binding).
// Scenarios need not set them.
var notReadByNorthd2303 = []string{
	"Connection.external_ids", "Connection.inactivity_probe", "Connection.is_connected",
	"Connection.max_backoff", "Connection.other_config", "Connection.status", "Connection.target",
	"NB_Global.connections", "NB_Global.ssl", "NB_Global.name", "NB_Global.hv_cfg_timestamp",
	"NB_Global.external_ids",
	"SSL.bootstrap_ca_cert", "SSL.ca_cert", "SSL.certificate", "SSL.external_ids", "SSL.private_key",
	"SSL.ssl_ciphers", "SSL.ssl_protocols",
	"Logical_Router_Port.ipv6_prefix", "BFD.options", "Gateway_Chassis.options",
	"ACL.external_ids", "BFD.external_ids", "Chassis_Template_Var.external_ids", "Copp.external_ids",
	"DHCP_Options.external_ids", "DNS.external_ids", "Forwarding_Group.external_ids",
	"Gateway_Chassis.external_ids", "HA_Chassis.external_ids", "HA_Chassis_Group.external_ids",
	"Load_Balancer.external_ids", "Load_Balancer_Health_Check.external_ids", "Logical_Router_Policy.external_ids",
	"Logical_Router_Port.external_ids", "Logical_Router_Static_Route.external_ids", "Meter.external_ids",
	"Meter_Band.external_ids", "Mirror.external_ids", "NAT.external_ids", "QoS.external_ids",
}

// notReadByNorthd2603 are the columns of 26.03's NB that ovn-northd
// 26.03.2 does not read: 23.03's but Logical_Router_Port.ipv6_prefix,
// which 26.03 announces in periodic router advertisements (copy_ra_to_sb:
// Port_Binding options:ipv6_ra_prefixes), and of the new columns the SSL
// setting, DHCP_Relay.options (documented "Future purpose"), the status
// columns it only writes (hosting-chassis of gateway ports; a switch port
// health check's status, from its Service_Monitor) and the new tables'
// external_ids; nor the external_ids of address sets and port groups,
// which it no longer even monitors (ovn-northd.c omits them, and those of
// Sample_Collector and Sampling_App).
var notReadByNorthd2603 = slices.Concat(slices.DeleteFunc(slices.Clone(notReadByNorthd2303),
	func(col string) bool { return col == "Logical_Router_Port.ipv6_prefix" }),
	[]string{"SSL.ssl_ciphersuites", "DHCP_Relay.options", "DHCP_Relay.external_ids",
		"Logical_Router_Port.status", "Logical_Switch_Port_Health_Check.status",
		"Network_Function.external_ids", "Network_Function_Group.external_ids",
		"Network_Function_Health_Check.external_ids", "Sample_Collector.external_ids", "Sampling_App.external_ids",
		"Address_Set.external_ids", "Port_Group.external_ids"})

// notReadByNorthd are, for each release, the columns of its NB that its
// ovn-northd does not read.
var notReadByNorthd = map[schema.Release][]string{
	schema.OVN2303: notReadByNorthd2303,
	schema.OVN2603: notReadByNorthd2603,
}

// check fails t unless every NB column the release's ovn-northd reads is
// set by some scenario, once every scenario ran (not under -run NAME).
func (c *nbCoverage) check(t *testing.T, release schema.Release, applicable int) {
	t.Helper()
	if c.scenarios < applicable {
		return
	}
	t.Logf("NB columns and keys set by the scenarios (first scenario):\n%s", c.report())
	notRead, ok := notReadByNorthd[release]
	if !ok {
		t.Fatalf("no list of the NB columns %s's northd does not read", release)
	}
	for _, col := range notRead {
		table, column, _ := strings.Cut(col, ".")
		if _, ok := c.schema.Tables[table].Columns[column]; !ok {
			t.Errorf("%s's NB has no column %s, listed as not read", release, col)
		}
	}
	var missing []string
	for _, col := range c.uncovered() {
		if !slices.Contains(notRead, col) {
			missing = append(missing, col)
		}
	}
	if len(missing) > 0 {
		t.Errorf("NB columns no scenario sets: %s", strings.Join(missing, ", "))
	}
}
