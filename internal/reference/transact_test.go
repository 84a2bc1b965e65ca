package reference

import (
	"strings"
	"testing"
)

// TestTransactResults: ovsdb-client transact's output gives the results, or
// an error naming the remote and the first failed operation.
func TestTransactResults(t *testing.T) {
	res, err := TransactResults("unix:nb.sock", []byte(`[{"count":1},{"uuid":["uuid","1"]}]`+"\n"))
	if err != nil || len(res) != 2 || string(res[0]) != `{"count":1}` {
		t.Errorf("good reply: %q, %v", res, err)
	}
	for reply, want := range map[string]string{
		`[{"count":1},{"error":"constraint violation","details":"duplicate name"}]`: "transact on unix:nb.sock: constraint violation: duplicate name",
		`not json`: "transact on unix:nb.sock: invalid character",
	} {
		if _, err := TransactResults("unix:nb.sock", []byte(reply)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("reply %s: got error %v, want %q...", reply, err, want)
		}
	}
}
