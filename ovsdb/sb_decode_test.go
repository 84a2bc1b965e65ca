package ovsdb

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/northlog/northlog/relations/sb"
	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// TestDecodeLogicalFlow: the fast decoder reads rows as libovsdb's generic
// path does, in every notation ovsdb-server uses.
func TestDecodeLogicalFlow(t *testing.T) {
	client, err := sb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	dbModel, errs := model.NewDatabaseModel(sb.Schema(), client)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	const u1, u2 = "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01", "6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e02"
	for _, row := range []string{
		`{"pipeline":"ingress","table_id":3,"priority":10,"match":"1","actions":"next;"}`,
		`{"pipeline":"egress","table_id":0,"priority":0,"match":"ip4 && \"a\\\"b\"","actions":"drop;",
		  "logical_datapath":["uuid","` + u1 + `"],"controller_meter":"meter1",
		  "external_ids":["map",[["stage-name","ls_out_pre_acl"],["source","northd.c:1"]]],"tags":["map",[["in_out_port","p1"]]]}`,
		`{"pipeline":"ingress","table_id":25,"priority":50,"match":"m","actions":"a",
		  "logical_datapath":["set",[]],"logical_dp_group":["uuid","` + u2 + `"],"controller_meter":["set",[]],
		  "external_ids":["map",[]],"tags":["map",[]]}`,
		`{"pipeline":"ingress","table_id":1,"priority":1,"match":"a\/b\n\\\u00e9\ud83d\ude00\t","actions":"é\"","controller_meter":["set",["x"]],
		  "logical_datapath":["set",[["uuid","` + u1 + `"]]]}`,
	} {
		fast, err := decodeLogicalFlow(json.RawMessage(row), u1)
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		var r lovsdb.Row
		if err := json.Unmarshal([]byte(row), &r); err != nil {
			t.Fatal(err)
		}
		generic, err := model.CreateModel(dbModel, sb.LogicalFlowTable, &r, u1)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(generic, fast, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: fast decoder differs (-generic +fast):\n%s", row, d)
		}
	}
	for _, bad := range []string{
		`{"logical_datapath":["set",[["uuid","a"],["uuid","b"]]]}`,
		`{"external_ids":["set",[]]}`,
		`{"controller_meter":["uuid","` + u1 + `"]}`,
	} {
		if _, err := decodeLogicalFlow(json.RawMessage(bad), u1); err == nil {
			t.Errorf("%s: decoded", bad)
		}
	}
}

// FuzzJSONString: jsonString decodes what encoding/json decodes, and
// fails where it fails.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"a"`, `"a\"b\\c\/d\ne\tf"`, `"\u00e9\ud83d\ude00"`, `"\x"`, `"a\"`, `"\xff"`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		end, err := valueEnd(q, 0)
		if err != nil || end != len(q) || q[0] != '"' {
			return // jsonString takes whole string values, as walkObject gives them
		}
		got, gerr := jsonString(q)
		var want string
		werr := json.Unmarshal(q, &want)
		if (gerr == nil) != (werr == nil) || got != want {
			t.Errorf("jsonString(%q) = %q, %v; encoding/json: %q, %v", q, got, gerr, want, werr)
		}
	})
}
