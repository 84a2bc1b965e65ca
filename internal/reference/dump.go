package reference

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/northlog/northlog/rules"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// SBDump is one consistent snapshot of an SB database, as `ovsdb-client
// dump` prints it, from which the canonical forms of its logical flows
// (Flows) and of its other rows (Rows) are computed. Both name datapaths and
// ports instead of giving row UUIDs and tunnel keys, so that two SBs
// written for the same NB compare equal whatever keys and UUIDs each
// allocated.
type SBDump struct {
	tables map[string][]row
	// table holds the table of every row, by _uuid, for references.
	table map[string]string
	rows  map[string]row
	// Datapath names by _uuid and by tunnel key; port names by datapath
	// and tunnel key.
	dpName    map[string]string
	dpByKey   map[string]string
	portByKey map[portKey]string
	// aclByID is the ACL (ACL_ID _uuid, the NB ACL's) of each ACL id.
	aclByID map[string]string
}

type portKey struct{ dp, key string }

// DumpSB reads the SB database at sbRemote (an OVSDB remote such as
// unix:/path/sb.sock) with the 23.03 reference's ovsdb-client (see
// Build.DumpSB).
func DumpSB(ctx context.Context, sbRemote string) (*SBDump, error) {
	return system.DumpSB(ctx, sbRemote)
}

// DumpSB reads the SB database at sbRemote with one `ovsdb-client dump` of
// the build's, a single transaction, so the snapshot is consistent even
// while northd writes.
func (b *Build) DumpSB(ctx context.Context, sbRemote string) (*SBDump, error) {
	if err := b.Available(); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, b.tool("ovsdb-client"), "-f", "json", "dump", sbRemote, "OVN_Southbound")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("reference: dump %s: %w: %s", sbRemote, err, strings.TrimSpace(stderr.String()))
	}
	return ParseSBDump(out)
}

// DumpFlows returns the logical flows of the SB database at sbRemote in
// canonical form (see SBDump.Flows).
func DumpFlows(ctx context.Context, sbRemote string) ([]string, error) {
	d, err := DumpSB(ctx, sbRemote)
	if err != nil {
		return nil, err
	}
	return d.Flows()
}

// DumpRows returns the rows of the given tables of the SB database at
// sbRemote in canonical form (see SBDump.Rows).
func DumpRows(ctx context.Context, sbRemote string, tables ...string) ([]string, error) {
	d, err := DumpSB(ctx, sbRemote)
	if err != nil {
		return nil, err
	}
	return d.Rows(tables...)
}

// A dumped table: ovsdb-client -f json dump prints one such object per line.
type dumpedTable struct {
	Caption  string              `json:"caption"` // "Logical_Flow table"
	Headings []string            `json:"headings"`
	Data     [][]json.RawMessage `json:"data"`
}

// row is one dumped row, column name to OVSDB JSON value.
type row map[string]json.RawMessage

var (
	rtrLBKey     = regexp.MustCompile(`_rtr_lb_(\d+)_ip`)
	ecmpReplyKey = regexp.MustCompile(`ecmp_reply_port (==|=) (\d+)`)
	// aclIDSet is an ACL's id written into its connection's label
	// (REG_ACL_ID).
	aclIDSet = regexp.MustCompile(`reg2\[16\.\.31\] = (\d+);`)
	// pgKey is an SB Port_Group name: the datapath's tunnel key, "_", the
	// NB port group's name (get_sb_port_group_name).
	pgKey = regexp.MustCompile(`^(\d+)_`)
)

// ParseSBDump reads the output of `ovsdb-client -f json dump` of an SB
// database.
func ParseSBDump(dump []byte) (*SBDump, error) {
	d := &SBDump{tables: map[string][]row{}, table: map[string]string{}, rows: map[string]row{},
		dpName: map[string]string{}, dpByKey: map[string]string{}, portByKey: map[portKey]string{}, aclByID: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(dump))
	sc.Buffer(nil, 1<<30)
	var p parser
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var t dumpedTable
		if err := json.Unmarshal(line, &t); err != nil {
			return nil, fmt.Errorf("reference: SB dump: %w", err)
		}
		name, _, _ := strings.Cut(t.Caption, " ")
		for _, v := range t.Data {
			if len(v) != len(t.Headings) {
				return nil, fmt.Errorf("reference: SB dump: %s row has %d values for %d columns", name, len(v), len(t.Headings))
			}
			r := row{}
			for i, h := range t.Headings {
				r[h] = v[i]
			}
			d.tables[name] = append(d.tables[name], r)
			if _, ok := r["_uuid"]; ok {
				u := p.uuid(r, "_uuid")
				d.table[u], d.rows[u] = name, r
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reference: SB dump: %w", err)
	}
	for _, r := range d.tables["Datapath_Binding"] {
		id := p.uuid(r, "_uuid")
		name, ok := p.smap(r, "external_ids")["name"]
		if !ok {
			name = id
		}
		d.dpName[id] = name
		d.dpByKey[p.integer(r, "tunnel_key")] = name
	}
	for _, r := range d.tables["Port_Binding"] {
		d.portByKey[portKey{p.uuid(r, "datapath"), p.integer(r, "tunnel_key")}] = p.str(r, "logical_port")
	}
	for _, r := range d.tables["ACL_ID"] {
		d.aclByID[p.integer(r, "id")] = p.uuid(r, "_uuid")
	}
	if p.err != nil {
		return nil, fmt.Errorf("reference: SB dump: %w", p.err)
	}
	return d, nil
}

// Flows returns the logical flows in canonical form, sorted: one line per
// flow per datapath,
//
//	DATAPATH|PIPELINE|TABLE|PRIORITY|MATCH|ACTIONS
//
// DATAPATH is the datapath's NB name (Datapath_Binding external_ids:name,
// else its SB _uuid). A flow on a Logical_DP_Group gives one line per member
// datapath; a member whose Datapath_Binding is gone (ovsdb-server 3.1 can
// leave such a dangling weak reference in a group) is skipped, as the IDL
// does. Tunnel keys, which any valid allocation may choose, are written as
// names: the datapath key in "_rtr_lb_KEY_ip" becomes the datapath's name and
// the port key in "ecmp_reply_port == KEY" (or "= KEY") becomes the
// logical_port of that key on the flow's datapath. ACL ids (26.03's
// ACL_ID), which northd allocates too, are written as the ACL's
// (rules.CanonicalACLID). Two SB databases hold the same logical flows
// exactly when their canonical dumps are equal.
func (d *SBDump) Flows() ([]string, error) {
	return d.flows(nil)
}

// FlowColumns returns the logical flows as Flows does, each line followed
// by the flow's other columns that northd writes:
//
//	...|ACTIONS|controller_meter=METER|external_ids={K=V ...}|tags={K=V ...}[|flow_desc=DESC]
//
// written as Rows writes values; flow_desc only where the SB's schema has
// it (26.03). external_ids:source, which names a line
// of northd.c, is left out, and so are the external_ids keys and tags keys
// in omit (those one side does not write yet, say).
func (d *SBDump) FlowColumns(omit ...string) ([]string, error) {
	p := &parser{}
	left := map[string]bool{"source": true}
	for _, k := range omit {
		left[k] = true
	}
	smapWithout := func(r row, col string) string {
		m := p.smap(r, col)
		var ss []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !left[k] {
				ss = append(ss, strconv.Quote(k)+"="+strconv.Quote(m[k]))
			}
		}
		return "{" + strings.Join(ss, " ") + "}"
	}
	lines, err := d.flows(func(r row) string {
		cols := "|controller_meter=" + d.column(p, "Logical_Flow", "controller_meter", r, 0) +
			"|external_ids=" + smapWithout(r, "external_ids") + "|tags=" + smapWithout(r, "tags")
		if _, ok := r["flow_desc"]; ok {
			cols += "|flow_desc=" + d.column(p, "Logical_Flow", "flow_desc", r, 0)
		}
		return cols
	})
	if err == nil && p.err != nil {
		err = fmt.Errorf("reference: SB dump: %w", p.err)
	}
	return lines, err
}

// flows writes the canonical flow lines, each followed by columns(row)
// when columns is not nil.
func (d *SBDump) flows(columns func(row) string) ([]string, error) {
	var p parser
	groups := map[string][]string{}
	for _, r := range d.tables["Logical_DP_Group"] {
		groups[p.uuid(r, "_uuid")] = p.uuids(r, "datapaths")
	}
	// keysToNames rewrites the tunnel keys in a flow's text on datapath dp.
	keysToNames := func(text, dp string) string {
		text = d.rtrLBNames(d.aclIDNames(text))
		if strings.Contains(text, "ecmp_reply_port") {
			text = ecmpReplyKey.ReplaceAllStringFunc(text, func(m string) string {
				sm := ecmpReplyKey.FindStringSubmatch(m)
				key := sm[2]
				if n, ok := d.portByKey[portKey{dp, key}]; ok {
					key = n
				}
				return "ecmp_reply_port " + sm[1] + " " + key
			})
		}
		return text
	}
	var out []string
	for _, r := range d.tables["Logical_Flow"] {
		dps := p.uuids(r, "logical_datapath")
		for _, g := range p.uuids(r, "logical_dp_group") {
			dps = append(dps, groups[g]...)
		}
		prefix := "|" + strings.Join([]string{p.str(r, "pipeline"), p.integer(r, "table_id"), p.integer(r, "priority")}, "|") + "|"
		match, actions := p.str(r, "match"), p.str(r, "actions")
		suffix := ""
		if columns != nil {
			suffix = columns(r)
		}
		for _, dp := range dps {
			name, ok := d.dpName[dp]
			if !ok {
				continue // a dangling weak reference: the datapath is gone
			}
			out = append(out, name+prefix+keysToNames(match, dp)+"|"+keysToNames(actions, dp)+suffix)
		}
	}
	if p.err != nil {
		return nil, fmt.Errorf("reference: SB dump: %w", p.err)
	}
	slices.Sort(out)
	return out, nil
}

// aclIDNames writes the ACL id set in "reg2[16..31] = ID;" as the ACL's
// (rules.CanonicalACLID).
func (d *SBDump) aclIDNames(text string) string {
	if !strings.Contains(text, "reg2[16..31] = ") {
		return text
	}
	return aclIDSet.ReplaceAllStringFunc(text, func(m string) string {
		id := aclIDSet.FindStringSubmatch(m)[1]
		if acl, ok := d.aclByID[id]; ok {
			id = rules.CanonicalACLID(acl)
		}
		return "reg2[16..31] = " + id + ";"
	})
}

// rtrLBNames writes the router tunnel key in "_rtr_lb_KEY_ip" as the
// router's name.
func (d *SBDump) rtrLBNames(text string) string {
	if !strings.Contains(text, "_rtr_lb_") {
		return text
	}
	return rtrLBKey.ReplaceAllStringFunc(text, func(m string) string {
		key := rtrLBKey.FindStringSubmatch(m)[1]
		if n, ok := d.dpByKey[key]; ok {
			key = n
		}
		return "_rtr_lb_" + key + "_ip"
	})
}

// nbUUIDKeys are the external_ids keys whose values are NB row UUIDs,
// which differ between two NBs built by the same commands.
var nbUUIDKeys = map[string]bool{"logical-switch": true, "logical-router": true, "lb_id": true, "dns_id": true}

// Rows returns the rows of the given SB tables in canonical form, sorted:
// one line per row,
//
//	TABLE|COLUMN=VALUE|COLUMN=VALUE...
//
// with every column but _uuid and _version, in name order. A string is
// Go-quoted; a set is [A B ...] and a map {K=V ...}, elements sorted, a
// one-element set written as its element (as OVSDB does). A reference is
// written as what it stands for: a Datapath_Binding as dp(NAME), a
// Port_Binding as port(LOGICAL_PORT), a Chassis as chassis(NAME), any other
// row inline as TABLE{COLUMN=VALUE ...} (a Logical_DP_Group as
// Logical_DP_Group{datapaths=[dp(sw0) dp(sw1)]}); a dangling weak
// reference is left out, as the IDL does.
//
// What any valid allocation may choose, or two NBs built by the same
// commands differ in, is written as names or left out: the tunnel_key of
// Datapath_Binding and Port_Binding rows is left out; the datapath key
// that starts an SB Port_Group name ("KEY_pg") and the router key in an
// Address_Set name ("_rtr_lb_KEY_ip4") become the datapath's name; the NB
// UUIDs in external_ids (logical-switch, logical-router, lb_id, dns_id)
// become "*".
// Columns that ovn-controller writes (Service_Monitor status...) are
// printed as they are.
//
// Two SB databases hold the same rows of these tables exactly when their
// Rows are equal. Rows of a table absent from the dump give no line.
func (d *SBDump) Rows(tables ...string) ([]string, error) {
	var out []string
	p := &parser{}
	for _, table := range tables {
		for _, r := range d.tables[table] {
			var b strings.Builder
			b.WriteString(table)
			for _, col := range slices.Sorted(maps.Keys(r)) {
				if col == "_uuid" || col == "_version" || col == "tunnel_key" && (table == "Datapath_Binding" || table == "Port_Binding") {
					continue
				}
				b.WriteString("|" + col + "=" + d.column(p, table, col, r, 0))
			}
			out = append(out, b.String())
		}
	}
	if p.err != nil {
		return nil, fmt.Errorf("reference: SB dump: %w", p.err)
	}
	slices.Sort(out)
	return out, nil
}

// maxInline bounds how deep rows referred to are written inline; the SB
// schema has no reference cycle, this only guards against a malformed
// dump.
const maxInline = 4

// column writes one column of row r of table.
func (d *SBDump) column(p *parser, table, col string, r row, depth int) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(r[col]))
	dec.UseNumber() // integers print as they are, whatever their size
	if err := dec.Decode(&v); err != nil {
		p.fail(r, col, err)
		return ""
	}
	switch {
	case col == "name" && table == "Port_Group":
		name := p.str(r, col)
		if m := pgKey.FindStringSubmatch(name); m != nil {
			if dp, ok := d.dpByKey[m[1]]; ok {
				name = dp + "_" + name[len(m[0]):]
			}
		}
		return strconv.Quote(name)
	case col == "name" && table == "Address_Set":
		return strconv.Quote(d.rtrLBNames(p.str(r, col)))
	}
	return d.value(p, r, col, v, depth, col == "external_ids")
}

// value writes an OVSDB JSON value; nbIDs says that it is an external_ids
// map, whose NB UUIDs are hidden.
func (d *SBDump) value(p *parser, r row, col string, v any, depth int, nbIDs bool) string {
	tagged, ok := v.([]any)
	if !ok || len(tagged) != 2 {
		return d.atom(p, r, col, v, depth)
	}
	tag, _ := tagged[0].(string)
	switch tag {
	case "set":
		elems, _ := tagged[1].([]any)
		var ss []string
		for _, e := range elems {
			if s := d.atom(p, r, col, e, depth); s != "" {
				ss = append(ss, s)
			}
		}
		slices.Sort(ss)
		if len(ss) == 1 {
			return ss[0]
		}
		return "[" + strings.Join(ss, " ") + "]"
	case "map":
		pairs, _ := tagged[1].([]any)
		var ss []string
		for _, kv := range pairs {
			pair, ok := kv.([]any)
			if !ok || len(pair) != 2 {
				p.fail(r, col, fmt.Errorf("malformed map pair %v", kv))
				continue
			}
			k := d.atom(p, r, col, pair[0], depth)
			val := d.atom(p, r, col, pair[1], depth)
			if key, ok := pair[0].(string); ok && nbIDs && nbUUIDKeys[key] {
				val = "*"
			}
			ss = append(ss, k+"="+val)
		}
		slices.Sort(ss)
		return "{" + strings.Join(ss, " ") + "}"
	}
	return d.atom(p, r, col, v, depth)
}

// atom writes one OVSDB JSON atom; a dangling reference gives "".
func (d *SBDump) atom(p *parser, r row, col string, v any, depth int) string {
	switch a := v.(type) {
	case string:
		return strconv.Quote(a)
	case json.Number:
		return a.String()
	case bool:
		return strconv.FormatBool(a)
	case []any:
		if len(a) == 2 && a[0] == "uuid" {
			u, _ := a[1].(string)
			return d.ref(p, u, depth)
		}
	}
	p.fail(r, col, fmt.Errorf("unexpected value %v", v))
	return ""
}

// ref writes a reference to row u.
func (d *SBDump) ref(p *parser, u string, depth int) string {
	r, ok := d.rows[u]
	if !ok {
		return ""
	}
	switch table := d.table[u]; table {
	case "Datapath_Binding":
		return "dp(" + d.dpName[u] + ")"
	case "Port_Binding":
		return "port(" + p.str(r, "logical_port") + ")"
	case "Chassis":
		return "chassis(" + p.str(r, "name") + ")"
	default:
		if depth >= maxInline {
			p.fail(r, "_uuid", fmt.Errorf("references nested deeper than %d", maxInline))
			return ""
		}
		var ss []string
		for _, col := range slices.Sorted(maps.Keys(r)) {
			if col != "_uuid" && col != "_version" {
				ss = append(ss, col+"="+d.column(p, table, col, r, depth+1))
			}
		}
		return table + "{" + strings.Join(ss, " ") + "}"
	}
}

// parser decodes OVSDB JSON values of dumped rows, keeping the first error
// so the callers read like the table walk they are.
type parser struct{ err error }

func (p *parser) fail(r row, col string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("column %s = %s: %w", col, r[col], err)
	}
}

func (p *parser) str(r row, col string) string {
	var s string
	if err := json.Unmarshal(r[col], &s); err != nil {
		p.fail(r, col, err)
	}
	return s
}

// optStr decodes an optional string column: the string, or "" for the
// empty set; "" too when the SB's schema has no such column.
func (p *parser) optStr(r row, col string) string {
	raw, ok := r[col]
	if !ok || raw[0] != '"' {
		return ""
	}
	return p.str(r, col)
}

// integer returns an integer column as decimal text, the form it has in
// flow text.
func (p *parser) integer(r row, col string) string {
	var n int64
	if err := json.Unmarshal(r[col], &n); err != nil {
		p.fail(r, col, err)
	}
	return strconv.FormatInt(n, 10)
}

// tagged splits an OVSDB tagged value ["TAG", BODY].
func (p *parser) tagged(r row, col string) (string, json.RawMessage) {
	var v [2]json.RawMessage
	var tag string
	err := json.Unmarshal(r[col], &v)
	if err == nil {
		err = json.Unmarshal(v[0], &tag)
	}
	if err != nil {
		p.fail(r, col, err)
	}
	return tag, v[1]
}

// uuids decodes a set of UUIDs: ["uuid", U] for a single element, or
// ["set", [["uuid", U]...]].
func (p *parser) uuids(r row, col string) []string {
	tag, body := p.tagged(r, col)
	var err error
	switch tag {
	case "uuid":
		var u string
		if err = json.Unmarshal(body, &u); err == nil {
			return []string{u}
		}
	case "set":
		var elems [][2]string
		if err = json.Unmarshal(body, &elems); err == nil {
			us := make([]string, len(elems))
			for i, e := range elems {
				us[i] = e[1]
			}
			return us
		}
	default:
		err = fmt.Errorf("not a set of uuids")
	}
	p.fail(r, col, err)
	return nil
}

// uuid decodes a column holding exactly one UUID.
func (p *parser) uuid(r row, col string) string {
	us := p.uuids(r, col)
	if len(us) != 1 {
		p.fail(r, col, fmt.Errorf("want one uuid"))
		return ""
	}
	return us[0]
}

// smap decodes a string-to-string map: ["map", [[K, V]...]].
func (p *parser) smap(r row, col string) map[string]string {
	var pairs [][2]string
	tag, body := p.tagged(r, col)
	err := fmt.Errorf("not a map")
	if tag == "map" {
		err = json.Unmarshal(body, &pairs)
	}
	if err != nil {
		p.fail(r, col, err)
	}
	m := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		m[kv[0]] = kv[1]
	}
	return m
}
