package reference

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// DumpFlows returns the logical flows of the SB database at sbRemote (an
// OVSDB remote such as unix:/path/sb.sock) in canonical form, sorted: one
// line per flow per datapath,
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
// logical_port of that key on the flow's datapath. Two SB databases hold the
// same logical flows exactly when their canonical dumps are equal.
//
// The SB is read with one `ovsdb-client dump`, a single transaction, so the
// dump is a consistent snapshot even while northd writes.
func DumpFlows(ctx context.Context, sbRemote string) ([]string, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, tool("ovsdb-client"), "-f", "json", "dump", sbRemote, "OVN_Southbound")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("reference: dump %s: %w: %s", sbRemote, err, strings.TrimSpace(stderr.String()))
	}
	return canonicalFlows(out)
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
)

// canonicalFlows computes DumpFlows' lines from the output of
// ovsdb-client -f json dump.
func canonicalFlows(dump []byte) ([]string, error) {
	tables := map[string][]row{}
	sc := bufio.NewScanner(bytes.NewReader(dump))
	sc.Buffer(nil, 1<<30)
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
		for _, d := range t.Data {
			if len(d) != len(t.Headings) {
				return nil, fmt.Errorf("reference: SB dump: %s row has %d values for %d columns", name, len(d), len(t.Headings))
			}
			r := row{}
			for i, h := range t.Headings {
				r[h] = d[i]
			}
			tables[name] = append(tables[name], r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reference: SB dump: %w", err)
	}
	var p parser
	dpName := map[string]string{}  // Datapath_Binding _uuid -> name
	dpByKey := map[string]string{} // tunnel_key -> name
	for _, r := range tables["Datapath_Binding"] {
		id := p.uuid(r, "_uuid")
		name, ok := p.smap(r, "external_ids")["name"]
		if !ok {
			name = id
		}
		dpName[id] = name
		dpByKey[p.integer(r, "tunnel_key")] = name
	}
	type portKey struct{ dp, key string }
	portByKey := map[portKey]string{}
	for _, r := range tables["Port_Binding"] {
		portByKey[portKey{p.uuid(r, "datapath"), p.integer(r, "tunnel_key")}] = p.str(r, "logical_port")
	}
	groups := map[string][]string{}
	for _, r := range tables["Logical_DP_Group"] {
		groups[p.uuid(r, "_uuid")] = p.uuids(r, "datapaths")
	}
	// keysToNames rewrites the tunnel keys in a flow's text on datapath dp.
	keysToNames := func(text, dp string) string {
		if strings.Contains(text, "_rtr_lb_") {
			text = rtrLBKey.ReplaceAllStringFunc(text, func(m string) string {
				key := rtrLBKey.FindStringSubmatch(m)[1]
				if n, ok := dpByKey[key]; ok {
					key = n
				}
				return "_rtr_lb_" + key + "_ip"
			})
		}
		if strings.Contains(text, "ecmp_reply_port") {
			text = ecmpReplyKey.ReplaceAllStringFunc(text, func(m string) string {
				sm := ecmpReplyKey.FindStringSubmatch(m)
				key := sm[2]
				if n, ok := portByKey[portKey{dp, key}]; ok {
					key = n
				}
				return "ecmp_reply_port " + sm[1] + " " + key
			})
		}
		return text
	}
	var out []string
	for _, r := range tables["Logical_Flow"] {
		dps := p.uuids(r, "logical_datapath")
		for _, g := range p.uuids(r, "logical_dp_group") {
			dps = append(dps, groups[g]...)
		}
		prefix := "|" + strings.Join([]string{p.str(r, "pipeline"), p.integer(r, "table_id"), p.integer(r, "priority")}, "|") + "|"
		match, actions := p.str(r, "match"), p.str(r, "actions")
		for _, dp := range dps {
			name, ok := dpName[dp]
			if !ok {
				continue // a dangling weak reference: the datapath is gone
			}
			out = append(out, name+prefix+keysToNames(match, dp)+"|"+keysToNames(actions, dp))
		}
	}
	if p.err != nil {
		return nil, fmt.Errorf("reference: SB dump: %w", p.err)
	}
	slices.Sort(out)
	return out, nil
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
