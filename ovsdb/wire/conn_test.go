package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// TestResultErrors: a transact reply's failed operations, the commit's
// error after them, and a reply shorter than the transaction.
func TestResultErrors(t *testing.T) {
	for _, c := range []struct {
		reply  string
		ops    int
		failed []string
		err    bool
	}{
		{reply: `[{"uuid":["uuid","6b6e2ab4-7a1c-4bb8-9c4f-2a5f6d1c0e01"]},{},{"count":1}]`, ops: 3},
		{reply: `[{"rows":[{"name":"error","details":"x"}]}]`, ops: 1},
		{reply: `[{},{"error":"constraint violation","details":"duplicate key"},null]`, ops: 3,
			failed: []string{"[op 1: constraint violation: duplicate key]"}},
		{reply: `[{},{"error":"referential integrity violation","details":"row r"}]`, ops: 1,
			failed: []string{"[op 1: referential integrity violation: row r]"}},
		{reply: `[{}]`, ops: 2, err: true},
		{reply: `[{"error":1}]`, ops: 1, err: true},
	} {
		failed, err := resultErrors([]byte(c.reply), c.ops)
		if (err != nil) != c.err || !slices.Equal(failed, c.failed) {
			t.Errorf("%s: %q, %v; want %q, error %v", c.reply, failed, err, c.failed, c.err)
		}
	}
}

// BenchmarkResultErrors reads the reply to a cold start's SB write at the
// bench size (43k inserts): with resultErrors, and decoded whole into
// libovsdb's results and checked by libovsdb, as before it.
func BenchmarkResultErrors(b *testing.B) {
	const n = 43131
	results := make([]string, n)
	ops := make([]lovsdb.Operation, n)
	for i := range results {
		results[i] = fmt.Sprintf(`{"uuid":["uuid","6b6e2ab4-7a1c-4bb8-9c4f-%012x"]}`, i)
		ops[i] = lovsdb.Operation{Op: lovsdb.OperationInsert}
	}
	reply := []byte("[" + strings.Join(results, ",") + "]")
	b.Run("resultErrors", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if failed, err := resultErrors(reply, n); err != nil || len(failed) > 0 {
				b.Fatal(failed, err)
			}
		}
	})
	b.Run("libovsdb", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var res []lovsdb.OperationResult
			if err := json.Unmarshal(reply, &res); err != nil {
				b.Fatal(err)
			}
			if _, err := lovsdb.CheckOperationResults(res, ops); err != nil {
				b.Fatal(err)
			}
		}
	})
}
